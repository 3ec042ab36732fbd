import ArgumentParser
import ExampleSupport

extension HomeworkCommand {
    /// What installing the app's package does on Apple's platforms: its extensions become
    /// known to the system, which starts them when it needs them.
    struct Install: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Install Homework's manifest, so Screenward starts its extensions when it needs them.",
            discussion: """
                Writes org.example.homework.json into $XDG_DATA_HOME/screenward/apps (this person's apps), or with \
                --system into /usr/share/screenward/apps (every user's; the only place that counts in an account \
                a guardian manages; root only). The manifest names this program, which must then stay where it is \
                and be writable by nobody but its owner.
                """)

        @Flag(help: "Install for every user (as root).")
        var system = false

        func run() throws {
            let (file, program) = try ManifestInstaller.install(
                bundleIdentifier: HomeworkCommand.bundleIdentifier, displayName: "Homework",
                extensions: [
                    ("device-activity-monitor", ["monitor"]), ("shield-configuration", ["configuration"]),
                    ("shield-action", ["actions"]),
                ],
                system: system)
            print("Installed Homework's extensions: \(file.path) names \(program).")
        }
    }
}
