import Foundation

/// Where an app's extension plugs in, as the manifest names it.
public enum ExtensionPoint: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// A `DeviceActivityMonitor`: the activities' callbacks.
    case deviceActivityMonitor = "device-activity-monitor"
    /// A `ShieldConfigurationDataSource`: how the app's shields look.
    case shieldConfiguration = "shield-configuration"
    /// A `ShieldActionDelegate`: what the app's shields' buttons do.
    case shieldAction = "shield-action"
    /// A `DeviceActivityReportExtension`: draws an app's report (run once per report, with no network).
    case deviceActivityReport = "device-activity-report"

    public var description: String { rawValue }
}

/// One extension of an installed app: the program the owner starts for it.
public struct AppExtension: Sendable, Hashable, Codable {
    public var point: ExtensionPoint
    /// Canonical absolute path (symbolic links resolved).
    public var executable: String
    public var arguments: [String]

    public init(point: ExtensionPoint, executable: String, arguments: [String] = []) {
        self.point = point
        self.executable = executable
        self.arguments = arguments
    }
}

/// An app a manifest installs: its name, the programs that are the app (a managed
/// account's daemon accepts requests only from these), and its extensions.
public struct InstalledApp: Sendable, Hashable {
    public var bundleIdentifier: String
    public var displayName: String
    /// Canonical absolute paths (symbolic links resolved): the `executables` the manifest
    /// lists and every extension's executable.
    public var executables: Set<String>
    public var extensions: [ExtensionPoint: AppExtension]

    public init(
        bundleIdentifier: String, displayName: String, executables: Set<String>,
        extensions: [ExtensionPoint: AppExtension] = [:]
    ) {
        self.bundleIdentifier = bundleIdentifier
        self.displayName = displayName
        self.executables = executables
        self.extensions = extensions
    }
}

/// Whose files a manifest and its programs may be.
public enum ManifestTrust: Sendable, Hashable {
    /// Root's, writable by nobody else, with every folder above them: the apps of every
    /// user, the only ones that count in a managed account.
    case rootOnly
    /// A person's own apps (individual mode): theirs or root's, and writable by nobody
    /// else: a program anyone could replace is not started.
    case owner(uid: UInt32)
    /// Unit tests of parsing only.
    case anyone
}

/// The manifest as it is written (format 1, docs/extensions.md).
struct AppManifestFile: Decodable {
    struct Extension: Decodable {
        var point: String
        var executable: String
        var arguments: [String]?
    }

    var format: Int
    var bundleIdentifier: String
    var displayName: String
    var executables: [String]?
    var extensions: [Extension]?

    static let format = 1
    static let maximumSize = 64 * 1024

    /// The app it installs, checked: a clear problem for anything malformed or unsafe.
    func app(file: String, expectedIdentifier: String, trust: ManifestTrust) throws(InstalledAppProblem) -> InstalledApp
    {
        guard format == Self.format else {
            throw .malformed(file, "format \(format); this Screenward reads format \(Self.format)")
        }
        guard bundleIdentifier == expectedIdentifier else {
            throw .malformed(file, "it names \(bundleIdentifier.prefix(120)), not \(expectedIdentifier)")
        }
        var installed: [ExtensionPoint: AppExtension] = [:]
        for entry in extensions ?? [] {
            guard let point = ExtensionPoint(rawValue: entry.point) else {
                throw .malformed(
                    file,
                    """
                    unknown extension point \(entry.point.prefix(80)) (known: \
                    \(ExtensionPoint.allCases.map(\.rawValue).joined(separator: ", ")))
                    """
                )
            }
            guard installed[point] == nil else { throw .malformed(file, "two \(point) extensions") }
            installed[point] = AppExtension(
                point: point, executable: try Self.checkedProgram(entry.executable, file: file, trust: trust),
                arguments: entry.arguments ?? [])
        }
        var programs: Set<String> = []
        for path in executables ?? [] { programs.insert(try Self.checkedProgram(path, file: file, trust: trust)) }
        programs.formUnion(installed.values.map(\.executable))
        guard !programs.isEmpty else { throw .malformed(file, "it names no executables and no extensions") }
        let name = displayName.trimmingCharacters(in: .whitespacesAndNewlines)
        return InstalledApp(
            bundleIdentifier: bundleIdentifier, displayName: name.isEmpty ? bundleIdentifier : String(name.prefix(80)),
            executables: programs, extensions: installed)
    }

    private static func checkedProgram(_ path: String, file: String, trust: ManifestTrust) throws(InstalledAppProblem)
        -> String
    {
        guard path.hasPrefix("/") else {
            throw .unsafe(file, "the executable \(path.prefix(200)) is not an absolute path")
        }
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        if let problem = FileTrust.problem(resolved, trust: trust, ancestors: true) {
            throw .unsafe(file, "the executable \(resolved): \(problem)")
        }
        return resolved
    }
}

/// Who could change a file.
package enum FileTrust {
    /// Why `path` (and, with `ancestors`, each folder above it) could be changed by
    /// someone `trust` does not allow, or nil when it cannot. A root-owned sticky folder
    /// (/tmp) is fine: nobody else can rename or replace another's entries in it.
    package static func problem(_ path: String, trust: ManifestTrust, ancestors: Bool = false) -> String? {
        var current = URL(fileURLWithPath: path)
        while true {
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: current.path) else {
                return "\(current.path) is missing"
            }
            let owner = (attributes[.ownerAccountID] as? NSNumber)?.uint32Value
            let mode = (attributes[.posixPermissions] as? NSNumber)?.uint16Value ?? 0o777
            let sticky = attributes[.type] as? FileAttributeType == .typeDirectory && mode & 0o1000 != 0
            switch trust {
            case .anyone:
                return nil
            case .rootOnly:
                guard owner == 0 else { return "\(current.path) is not owned by root" }
                if mode & 0o022 != 0, !sticky { return "\(current.path) is writable by others than root" }
            case .owner(let uid):
                guard owner == 0 || owner == uid else { return "\(current.path) belongs to another user" }
                if mode & 0o022 != 0, !sticky { return "\(current.path) is writable by others" }
            }
            guard ancestors, current.path != "/" else { return nil }
            current.deleteLastPathComponent()
        }
    }
}
