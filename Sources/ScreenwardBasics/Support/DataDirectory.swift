import Foundation

/// Where Screenward's data files live (`categories.json`, later the shield's look
/// and texts): files a distribution may change.
///
/// `$SCREENWARD_DATA_DIR`, else `share/screenward` next to the installed programs
/// (`/usr/bin/../share/screenward`), else the source tree's `data/` when the program
/// runs from a build folder inside it.
public enum DataDirectory {
    public enum LookupError: Error, CustomStringConvertible {
        case notFound(file: String, searched: [String])

        public var description: String {
            switch self {
            case .notFound(let file, let searched):
                """
                cannot find Screenward's data file \(file); looked in \(searched.joined(separator: ", ")). Set \
                SCREENWARD_DATA_DIR to the folder that holds it.
                """
            }
        }
    }

    public static func url(
        of file: String, environment: [String: String] = ProcessInfo.processInfo.environment,
        executable: URL = runningExecutable()
    ) throws -> URL {
        var candidates: [URL] = []
        if let explicit = environment["SCREENWARD_DATA_DIR"], !explicit.isEmpty {
            candidates.append(URL(fileURLWithPath: explicit, isDirectory: true))
        }
        let bin = executable.deletingLastPathComponent()
        candidates.append(bin.deletingLastPathComponent().appendingPathComponent("share/screenward", isDirectory: true))
        // A build folder (.build/debug, .build/x86_64-unknown-linux-gnu/release): walk up to the checkout.
        var folder = bin
        for _ in 0..<5 {
            candidates.append(folder.appendingPathComponent("data", isDirectory: true))
            folder = folder.deletingLastPathComponent()
        }
        if let found = candidates.map({ $0.appendingPathComponent(file) }).first(where: {
            FileManager.default.fileExists(atPath: $0.path)
        }) {
            return found
        }
        throw LookupError.notFound(file: file, searched: candidates.map(\.path))
    }

    /// The program running, its symbolic links resolved: its first argument when that is a
    /// path; the kernel's word (/proc/self/exe) when it is a bare name, found through PATH (the
    /// package's scripts run `screenward` so, from /, where the name alone would be looked for).
    public static func runningExecutable(argument0: String? = CommandLine.arguments.first) -> URL {
        guard let argument0, argument0.contains("/") else {
            return URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        }
        return URL(fileURLWithPath: argument0).resolvingSymlinksInPath()
    }

    /// The category table the agent and the CLI use.
    public static func categoryTable() throws -> CategoryTable {
        try CategoryTable.load(from: try url(of: "categories.json"))
    }
}
