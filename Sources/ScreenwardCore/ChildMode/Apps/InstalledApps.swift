import Foundation

/// An app a root-owned manifest installs for every user: the only kind of app that
/// may hold `.child` in a managed account, and only when its requests come from the
/// executables named here.
///
/// The manifest is `<bundle identifier>.json` in `/usr/share/screenward/apps` (format
/// 1, documented in docs/extensions.md); keys this version does not know are ignored.
public struct InstalledApp: Sendable, Hashable {
    public var bundleIdentifier: String
    public var displayName: String
    /// Canonical absolute paths (symbolic links resolved).
    public var executables: Set<String>
}

/// The folder of app manifests, read when asked (a few small files; an app installed a
/// moment ago counts at once).
public struct InstalledApps: Sendable {
    public static let systemDirectory = URL(fileURLWithPath: "/usr/share/screenward/apps", isDirectory: true)
    public static let format = 1

    public let directory: URL
    /// Off only for unit tests of parsing: a managed account's apps must be root's.
    let requireRootOwnership: Bool

    public init(directory: URL = InstalledApps.systemDirectory, requireRootOwnership: Bool = true) {
        self.directory = directory
        self.requireRootOwnership = requireRootOwnership
    }

    private struct Manifest: Decodable {
        var format: Int
        var bundleIdentifier: String
        var displayName: String
        var executables: [String]
    }

    /// The installed app with this identifier; a clear refusal when there is none or its
    /// manifest is unsafe or malformed.
    public func app(_ bundleIdentifier: String) throws(InstalledAppProblem) -> InstalledApp {
        let file = directory.appendingPathComponent("\(bundleIdentifier).json")
        guard FileManager.default.fileExists(atPath: file.path) else { throw .notInstalled(bundleIdentifier, directory: directory.path) }
        if requireRootOwnership {
            for path in [directory.path, file.path] {
                if let problem = Self.unsafeOwnership(path) { throw .unsafe(file.path, problem) }
            }
        }
        let manifest: Manifest
        do {
            let data = try Data(contentsOf: file)
            guard data.count <= 64 * 1024 else { throw InstalledAppProblem.malformed(file.path, "larger than 64 KiB") }
            manifest = try JSONDecoder().decode(Manifest.self, from: data)
        } catch let problem as InstalledAppProblem {
            throw problem
        } catch let error as DecodingError {
            throw .malformed(file.path, error.readableDescription)
        } catch {
            throw .malformed(file.path, "\(error)")
        }
        guard manifest.format == Self.format else { throw .malformed(file.path, "format \(manifest.format); this Screenward reads format \(Self.format)") }
        guard manifest.bundleIdentifier == bundleIdentifier else {
            throw .malformed(file.path, "it names \(manifest.bundleIdentifier.prefix(120)), not \(bundleIdentifier)")
        }
        guard !manifest.executables.isEmpty else { throw .malformed(file.path, "it names no executables") }
        var executables: Set<String> = []
        for path in manifest.executables {
            guard path.hasPrefix("/") else { throw .unsafe(file.path, "the executable \(path.prefix(200)) is not an absolute path") }
            let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
            if requireRootOwnership, let problem = Self.unsafeOwnership(resolved, ancestors: true) {
                throw .unsafe(file.path, "the executable \(resolved): \(problem)")
            }
            executables.insert(resolved)
        }
        let name = manifest.displayName.trimmingCharacters(in: .whitespacesAndNewlines)
        return InstalledApp(
            bundleIdentifier: bundleIdentifier, displayName: name.isEmpty ? bundleIdentifier : String(name.prefix(80)), executables: executables)
    }

    /// Why `path` (and, with `ancestors`, each folder above it) could be changed by
    /// someone other than root, or nil when it cannot. A root-owned sticky folder
    /// (/tmp) is fine: nobody else can rename or replace root's entries in it.
    static func unsafeOwnership(_ path: String, ancestors: Bool = false) -> String? {
        var current = URL(fileURLWithPath: path)
        while true {
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: current.path) else { return "\(current.path) is missing" }
            let owner = (attributes[.ownerAccountID] as? NSNumber)?.uint32Value
            let mode = (attributes[.posixPermissions] as? NSNumber)?.uint16Value ?? 0o777
            guard owner == 0 else { return "\(current.path) is not owned by root" }
            let sticky = attributes[.type] as? FileAttributeType == .typeDirectory && mode & 0o1000 != 0
            if mode & 0o022 != 0, !sticky { return "\(current.path) is writable by others than root" }
            guard ancestors, current.path != "/" else { return nil }
            current.deleteLastPathComponent()
        }
    }
}

public enum InstalledAppProblem: Error, CustomStringConvertible, Equatable {
    case notInstalled(String, directory: String)
    case malformed(String, String)
    case unsafe(String, String)

    public var description: String {
        switch self {
        case .notInstalled(let id, let directory):
            "\(id) is not installed for this computer's users (no \(directory)/\(id).json): in a managed account only apps a guardian installed can use the Screen Time API"
        case .malformed(let file, let why): "the app manifest \(file) is malformed: \(why)"
        case .unsafe(let file, let why): "the app manifest \(file) is not safe to trust: \(why)"
        }
    }
}
