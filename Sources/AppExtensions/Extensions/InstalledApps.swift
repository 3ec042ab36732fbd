import Foundation
import ScreenwardBasics

/// A folder of app manifests, `<bundle identifier>.json` each (format 1, documented in
/// docs/extensions.md), read when asked: a few small files, so an app installed a moment
/// ago counts at once.
///
/// `/usr/share/screenward/apps` installs apps for every user (root's files only; the
/// only folder that counts in a managed account); `$XDG_DATA_HOME/screenward/apps`
/// installs a person's own (individual mode).
public struct InstalledApps: Sendable {
    public static let systemDirectory = URL(fileURLWithPath: "/usr/share/screenward/apps", isDirectory: true)

    public let directory: URL
    public let trust: ManifestTrust

    public init(directory: URL = InstalledApps.systemDirectory, trust: ManifestTrust = .rootOnly) {
        self.directory = directory
        self.trust = trust
    }

    /// A person's own apps: `$XDG_DATA_HOME/screenward/apps` (or `~/.local/share/…`).
    public static func personal(environment: [String: String] = ProcessInfo.processInfo.environment, uid: UInt32)
        -> InstalledApps
    {
        let dataHome =
            environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.local/share")
        return InstalledApps(
            directory: URL(fileURLWithPath: dataHome).appendingPathComponent("screenward/apps", isDirectory: true),
            trust: .owner(uid: uid))
    }

    /// The folders a person's apps are installed in, in order: their own, then the
    /// system's, `screenward/apps` in each of `$XDG_DATA_DIRS` (default `/usr/local/share:/usr/share`),
    /// root's files only. Later folders win when two name an app: the system's over the
    /// person's, and the first of `$XDG_DATA_DIRS` over the others, as XDG orders them.
    /// (A managed account's apps are the daemon's folder alone, whatever its environment says.)
    public static func forPerson(uid: UInt32, environment: [String: String] = ProcessInfo.processInfo.environment)
        -> [InstalledApps]
    {
        var seen = Set<String>()
        let system = SharedDataDirectories.from(environment).compactMap { folder -> InstalledApps? in
            let directory = URL(fileURLWithPath: folder, isDirectory: true).appendingPathComponent(
                "screenward/apps", isDirectory: true
            ).standardizedFileURL
            guard seen.insert(directory.path).inserted else { return nil }
            return InstalledApps(directory: directory, trust: .rootOnly)
        }
        return [personal(environment: environment, uid: uid)] + system.reversed()
    }

    /// Every app `folders` install, later folders winning, and the manifests skipped.
    public static func all(in folders: [InstalledApps]) -> (
        apps: [String: InstalledApp], problems: [InstalledAppProblem]
    ) {
        var apps: [String: InstalledApp] = [:]
        var problems: [InstalledAppProblem] = []
        for folder in folders {
            let (found, skipped) = folder.all()
            problems += skipped
            for app in found { apps[app.bundleIdentifier] = app }
        }
        return (apps, problems)
    }

    /// The installed app with this identifier; a clear refusal when there is none or its
    /// manifest is unsafe or malformed.
    public func app(_ bundleIdentifier: String) throws(InstalledAppProblem) -> InstalledApp {
        let file = directory.appendingPathComponent("\(bundleIdentifier).json")
        guard FileManager.default.fileExists(atPath: file.path) else {
            throw .notInstalled(bundleIdentifier, directory: directory.path)
        }
        for path in [directory.path, file.path] {
            if let problem = FileTrust.problem(path, trust: trust) { throw .unsafe(file.path, problem) }
        }
        let manifest: AppManifestFile
        do {
            let data = try Data(contentsOf: file)
            guard data.count <= AppManifestFile.maximumSize else {
                throw InstalledAppProblem.malformed(file.path, "larger than 64 KiB")
            }
            manifest = try JSONDecoder().decode(AppManifestFile.self, from: data)
        } catch let problem as InstalledAppProblem {
            throw problem
        } catch let error as DecodingError {
            throw .malformed(file.path, error.readableDescription)
        } catch {
            throw .malformed(file.path, "\(error)")
        }
        return try manifest.app(file: file.path, expectedIdentifier: bundleIdentifier, trust: trust)
    }

    /// Every app the folder installs, and the manifests skipped, with why. A missing
    /// folder installs nothing.
    public func all() -> (apps: [InstalledApp], problems: [InstalledAppProblem]) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return ([], []) }
        var apps: [InstalledApp] = []
        var problems: [InstalledAppProblem] = []
        for name in names.sorted() where name.hasSuffix(".json") {
            let identifier = String(name.dropLast(".json".count))
            do {
                apps.append(try app(identifier))
            } catch {
                problems.append(error)
            }
        }
        return (apps, problems)
    }
}

public enum InstalledAppProblem: Error, CustomStringConvertible, Equatable {
    case notInstalled(String, directory: String)
    case malformed(String, String)
    case unsafe(String, String)

    public var description: String {
        switch self {
        case .notInstalled(let id, let directory):
            """
            \(id) is not installed for this computer's users (no \(directory)/\(id).json): in a managed account \
            only apps a guardian installed can use the Screen Time API
            """
        case .malformed(let file, let why): "the app manifest \(file) is malformed: \(why)"
        case .unsafe(let file, let why): "the app manifest \(file) is not safe to trust: \(why)"
        }
    }
}
