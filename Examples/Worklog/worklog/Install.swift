import ArgumentParser
import ExampleSupport

extension WorklogCommand {
    /// What installing the app's package does on Apple's platforms: its monitor becomes
    /// known to the system, which starts it when a callback is due.
    struct Install: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                """
                Install Worklog's manifest, so Screenward starts its monitor and its report extension when it \
                needs them.
                """,
            discussion: """
                Writes org.example.worklog.json into $XDG_DATA_HOME/screenward/apps (this person's apps), or with \
                --system into /usr/share/screenward/apps (root only). The manifest names this program, which must \
                then stay where it is and be writable by nobody but its owner.
                """)

        @Flag(help: "Install for every user (as root).")
        var system = false

        func run() throws {
            let (file, program) = try ManifestInstaller.install(
                bundleIdentifier: WorklogCommand.bundleIdentifier, displayName: "Worklog",
                extensions: [
                    ("device-activity-monitor", ["monitor"]), ("device-activity-report", ["report-extension"]),
                ], system: system)
            print("Installed Worklog's monitor and report extension: \(file.path) names \(program).")
        }
    }
}
