import Foundation

/// An application's desktop entry (freedesktop.org Desktop Entry Specification 1.5),
/// reduced to what identity resolution and reports need.
public struct DesktopEntry: Hashable, Sendable {
    /// The desktop id, such as `firefox.desktop` or `kde4-foo.desktop`.
    public var id: String
    /// `Name`, localized for the locale the entry was parsed with.
    public var name: String
    public var iconName: String?
    public var categories: [String]
    public var startupWMClass: String?
    /// The `Exec` command line with the general string escapes undone but the
    /// quoting and field codes (`%U`, …) left as written.
    public var exec: String?
    public var tryExec: String?
    public var noDisplay: Bool
    /// The file the entry came from.
    public var path: URL

    /// The key that marks a copy Screenward wrote to hide a blocked application from menus
    /// (`BlockedMenuEntries`), and the key under which that copy keeps the entry's own
    /// `NoDisplay`: identity reads such a copy as the entry it stands for.
    public static let blockedMarkerKey = "X-Screenward-Blocked"
    public static let ownNoDisplayKey = "X-Screenward-NoDisplay"

    public init(
        id: String, name: String, iconName: String? = nil, categories: [String] = [],
        startupWMClass: String? = nil, exec: String? = nil, tryExec: String? = nil,
        noDisplay: Bool = false, path: URL
    ) {
        self.id = id
        self.name = name
        self.iconName = iconName
        self.categories = categories
        self.startupWMClass = startupWMClass
        self.exec = exec
        self.tryExec = tryExec
        self.noDisplay = noDisplay
        self.path = path
    }
}

/// Why a desktop entry file could not be used.
public struct DesktopEntryError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Problem: Hashable, Sendable {
        case missingDesktopEntryGroup
        case missingName
        case fileTooLarge(limit: Int)
        case notARegularFile
        case unreadable(String)
    }

    public var file: String
    /// 1-based; 0 when the problem concerns the file as a whole.
    public var line: Int
    public var problem: Problem

    public init(file: String, line: Int, problem: Problem) {
        self.file = file
        self.line = line
        self.problem = problem
    }

    public var description: String {
        let what: String
        switch problem {
        case .missingDesktopEntryGroup: what = "no [Desktop Entry] group"
        case .missingName: what = "the [Desktop Entry] group has no Name"
        case .fileTooLarge(let limit): what = "larger than \(limit) bytes, not read"
        case .notARegularFile: what = "not a regular file"
        case .unreadable(let reason): what = "unreadable: \(reason)"
        }
        return "\(file):\(line): \(what)"
    }
}

extension DesktopEntry {
    /// Real desktop entries are a few KiB; anything this big is a mistake or an attack.
    public static let maximumFileSize = 1 << 20

    /// Parses the `[Desktop Entry]` group of a file's contents.
    ///
    /// Returns nil for entries that exist but are not applications to show or match:
    /// `Hidden=true` (the spec's way of deleting an entry) and any `Type` other than
    /// `Application`. Throws when the file is not a usable desktop entry at all.
    public static func parse(contents: String, id: String, path: URL, locale: String) throws -> DesktopEntry? {
        let (found, firstContentLine) = KeyFile.group("Desktop Entry", in: contents)
        guard let group = found else {
            throw DesktopEntryError(file: path.path, line: firstContentLine, problem: .missingDesktopEntryGroup)
        }
        let values = group.values
        func string(_ key: String) -> String? {
            guard let raw = values[key] else { return nil }
            let value = unescape(raw, splittingList: false).first ?? ""
            return value.isEmpty ? nil : value
        }
        func boolean(_ key: String) -> Bool {
            // "1" is what pre-1.0 files wrote and GLib still accepts.
            values[key] == "true" || values[key] == "1"
        }

        // Checked before Name: a file that only says `Hidden=true` is a valid mask.
        if boolean("Hidden") { return nil }
        guard values["Type"] == "Application" else { return nil }

        // The plain Name is required even when a translation would be shown, so a
        // file is valid or broken the same way in every locale.
        guard let untranslated = string("Name") else {
            throw DesktopEntryError(file: path.path, line: group.headerLine, problem: .missingName)
        }
        let translated = localeVariants(locale).lazy.compactMap { string("Name[\($0)]") }.first
        // A copy Screenward wrote to hide a blocked application from menus stands, for
        // identity, for the entry as it was (its own NoDisplay is kept aside): hiding an
        // entry must not make another entry of the same program the "main" one.
        let noDisplay =
            boolean(DesktopEntry.blockedMarkerKey) ? boolean(DesktopEntry.ownNoDisplayKey) : boolean("NoDisplay")
        return DesktopEntry(
            id: id, name: translated ?? untranslated, iconName: string("Icon"),
            categories: values["Categories"].map { unescape($0, splittingList: true) } ?? [],
            startupWMClass: string("StartupWMClass"), exec: string("Exec"), tryExec: string("TryExec"),
            noDisplay: noDisplay, path: path)
    }

    /// Reads and parses a desktop entry file; see `parse(contents:id:path:locale:)`.
    public static func load(file: URL, id: String, locale: String) throws -> DesktopEntry? {
        // A FIFO or device named *.desktop would block or never end; refuse it before opening.
        // Symlinks are followed: packagers (and all of NixOS) link entries into place.
        let target = file.resolvingSymlinksInPath()
        let isRegular = (try? target.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile ?? false
        guard isRegular else { throw DesktopEntryError(file: file.path, line: 0, problem: .notARegularFile) }
        let data: Data
        do {
            let handle = try FileHandle(forReadingFrom: target)
            defer { try? handle.close() }
            // One byte past the limit tells a file at the limit from a larger one.
            data = try handle.read(upToCount: maximumFileSize + 1) ?? Data()
        } catch {
            throw DesktopEntryError(file: file.path, line: 0, problem: .unreadable(error.localizedDescription))
        }
        guard data.count <= maximumFileSize else {
            throw DesktopEntryError(file: file.path, line: 0, problem: .fileTooLarge(limit: maximumFileSize))
        }
        // Lossy decoding: one bad byte in a translation must not lose the whole entry.
        return try parse(contents: String(decoding: data, as: UTF8.self), id: id, path: file, locale: locale)
    }

    /// The locale desktop entries are shown in, as POSIX does for messages.
    public static func locale(fromEnvironment environment: [String: String]) -> String {
        for key in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            if let value = environment[key], !value.isEmpty { return value }
        }
        return "C"
    }

    /// The `[locale]` suffixes to try, most specific first, as the spec's matching
    /// rules order them. The encoding (`.UTF-8`) never takes part in matching.
    static func localeVariants(_ locale: String) -> [String] {
        var rest = Substring(locale)
        var modifier: Substring?
        if let at = rest.firstIndex(of: "@") {
            modifier = rest[rest.index(after: at)...]
            rest = rest[..<at]
        }
        if let dot = rest.firstIndex(of: ".") { rest = rest[..<dot] }
        var lang = rest
        var country: Substring?
        if let underscore = rest.firstIndex(of: "_") {
            lang = rest[..<underscore]
            country = rest[rest.index(after: underscore)...]
        }
        // "C" and "POSIX" mean untranslated.
        guard !lang.isEmpty, lang != "C", lang != "POSIX" else { return [] }
        if modifier?.isEmpty == true { modifier = nil }
        if country?.isEmpty == true { country = nil }

        var variants: [String] = []
        if let country, let modifier { variants.append("\(lang)_\(country)@\(modifier)") }
        if let country { variants.append("\(lang)_\(country)") }
        if let modifier { variants.append("\(lang)@\(modifier)") }
        variants.append(String(lang))
        return variants
    }

    /// Undoes the spec's escapes (`\s \n \t \r \\`), splitting at unescaped `;` when
    /// the value is a list. Unknown escapes are kept as written rather than rejected:
    /// a stray backslash should not cost a user an application.
    static func unescape(_ raw: String, splittingList: Bool) -> [String] {
        var items: [String] = []
        var current = String.UnicodeScalarView()
        var scalars = raw.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            if splittingList && scalar == ";" {
                items.append(String(current))
                current = String.UnicodeScalarView()
                continue
            }
            guard scalar == "\\" else {
                current.append(scalar)
                continue
            }
            guard let escaped = scalars.next() else {
                current.append(scalar)
                break
            }
            switch escaped {
            case "s": current.append(" ")
            case "n": current.append("\n")
            case "t": current.append("\t")
            case "r": current.append("\r")
            case "\\": current.append("\\")
            case ";" where splittingList: current.append(";")
            default:
                current.append(scalar)
                current.append(escaped)
            }
        }
        items.append(String(current))
        // Lists end with ";" by convention, and an empty item is never meaningful.
        return splittingList ? items.filter { !$0.isEmpty } : items
    }
}
