import ArgumentParser
import Foundation

extension WorklogCommand {
    /// What installing the app's package does on Apple's platforms: its extensions become
    /// known to the system, which starts them when it needs them.
    struct Install: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Install Worklog's manifest, so Screenward starts its extensions when it needs them.",
            discussion: """
                Writes org.example.worklog.json into $XDG_DATA_HOME/screenward/apps (this person's apps), or with \
                --system into /usr/share/screenward/apps (every user's; the only place that counts in an account \
                a guardian manages; root only). The manifest names this program, which must then stay where it is \
                and be writable by nobody but its owner.
                """)

        @Flag(help: "Install for every user (as root).")
        var system = false

        func run() throws {
            let program = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
            let folder: URL
            if system {
                folder = URL(fileURLWithPath: "/usr/share/screenward/apps", isDirectory: true)
            } else {
                let environment = ProcessInfo.processInfo.environment
                let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? NSHomeDirectory() + "/.local/share"
                folder = URL(fileURLWithPath: dataHome).appendingPathComponent("screenward/apps", isDirectory: true)
            }
            let manifest: [String: Any] = [
                "format": 1,
                "bundleIdentifier": WorklogCommand.bundleIdentifier,
                "displayName": "Worklog",
                "executables": [program],
                "extensions": [
                    ["point": "device-activity-monitor", "executable": program, "arguments": ["monitor"]]
                ],
            ]
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
                let data = try JSONSerialization.data(withJSONObject: manifest, options: [.prettyPrinted, .sortedKeys])
                let file = folder.appendingPathComponent("\(WorklogCommand.bundleIdentifier).json")
                try data.write(to: file, options: .atomic)
                try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
                print("Installed Worklog's monitor: \(file.path) names \(program).")
            } catch {
                throw ValidationError("could not install Worklog's manifest in \(folder.path): \(error.localizedDescription)")
            }
        }
    }
}
