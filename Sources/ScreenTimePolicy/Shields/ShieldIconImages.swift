import Foundation
import ManagedSettingsUI
import ScreenwardBasics

/// A shield's icon as the browsers' shield page draws it: the image itself, in a `data:` URL.
///
/// A page of the extension can read neither the desktop's icon theme nor a file, so the
/// owner sends the image: an icon-theme name is looked up as GTK finds it for the window's
/// shield (the Adwaita theme, then hicolor, in the XDG data folders, then `pixmaps`; scalable
/// first, else the largest size), a file is read. Only images are sent (PNG, SVG, JPEG, GIF,
/// WebP, by their first bytes) and only up to `maximumBytes`: the daemon reads as root what
/// an installed app's configuration names, and a browser's message holds at most 1 MiB.
public struct ShieldIconImages: Sendable {
    public static let maximumBytes = 256 * 1024
    /// The themes looked in, in order: GTK's own default, then the one every theme inherits.
    static let themes = ["Adwaita", "hicolor"]
    /// Each theme's size folders, most wanted first.
    static let sizes = [
        "scalable", "512x512", "256x256", "192x192", "128x128", "96x96", "72x72", "64x64", "48x48", "32x32", "24x24",
        "22x22", "16x16",
    ]
    static let contexts = [
        "apps", "status", "actions", "categories", "places", "devices", "emblems", "mimetypes", "legacy", "emotes",
        "intl",
    ]

    /// The data folders (`…/share`) whose `icons` and `pixmaps` are looked in, in order.
    let dataDirectories: [String]

    public init(dataDirectories: [String]) {
        self.dataDirectories = dataDirectories
    }

    /// The data folders of `environment` (`$XDG_DATA_HOME`, then `$XDG_DATA_DIRS`).
    public init(environment: [String: String]) {
        var directories: [String] = []
        if let home = environment["XDG_DATA_HOME"], home.hasPrefix("/") {
            directories.append(home)
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            directories.append(home + "/.local/share")
        }
        self.init(dataDirectories: directories + SharedDataDirectories.from(environment))
    }

    /// The icon's image as a `data:` URL; nil when there is none fit to send (the page then
    /// keeps its built-in clock).
    public func dataURL(for icon: ShieldIcon) -> String? {
        let path: String?
        switch icon {
        case .file(let file): path = file.hasPrefix("/") ? file : nil
        case .themed(let name): path = file(forIconNamed: name)
        }
        guard let path, let image = Self.image(at: path) else { return nil }
        return "data:\(image.type);base64,\(image.data.base64EncodedString())"
    }

    /// Where the icon-theme icon `name` is, if it is anywhere.
    func file(forIconNamed name: String) -> String? {
        // A name, not a path: nothing that climbs out of the theme.
        guard !name.isEmpty, !name.contains("/"), !name.hasPrefix("."), name.count <= 255 else { return nil }
        let manager = FileManager.default
        for theme in Self.themes {
            for base in dataDirectories {
                let folder = "\(base)/icons/\(theme)"
                guard manager.fileExists(atPath: folder) else { continue }
                for size in Self.sizes {
                    for context in Self.contexts {
                        for suffix in size == "scalable" ? [".svg"] : [".png", ".svg"] {
                            let path = "\(folder)/\(size)/\(context)/\(name)\(suffix)"
                            if manager.fileExists(atPath: path) { return path }
                        }
                    }
                }
            }
        }
        for base in dataDirectories {
            for suffix in [".svg", ".png"] where manager.fileExists(atPath: "\(base)/pixmaps/\(name)\(suffix)") {
                return "\(base)/pixmaps/\(name)\(suffix)"
            }
        }
        return nil
    }

    /// The file's bytes and their type, when it is an image no larger than `maximumBytes`.
    static func image(at path: String) -> (data: Data, type: String)? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: maximumBytes + 1), data.count <= maximumBytes,
            let type = imageType(of: data)
        else { return nil }
        return (data, type)
    }

    /// The image type the first bytes say, for the formats every browser draws.
    static func imageType(of data: Data) -> String? {
        let bytes = [UInt8](data.prefix(16))
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if bytes.starts(with: Array("GIF8".utf8)) { return "image/gif" }
        if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) {
            return "image/webp"
        }
        // SVG is text: an XML declaration or the element itself, after any blank space.
        let head = String(decoding: data.prefix(512), as: UTF8.self).drop { $0.isWhitespace || $0 == "\u{FEFF}" }
        if head.hasPrefix("<svg") || (head.hasPrefix("<?xml") && head.contains("<svg")) { return "image/svg+xml" }
        return nil
    }
}
