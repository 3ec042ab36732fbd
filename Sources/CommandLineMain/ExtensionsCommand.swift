import ArgumentParser
import Foundation
import Glibc
import ScreenwardCore
import ScreenwardIPC

struct ExtensionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extensions",
        abstract: "List the installed apps, their extensions, which run now, and their recent runs and failures.",
        discussion: """
            Apps are installed by a manifest in $XDG_DATA_HOME/screenward/apps (your own) or \
            /usr/share/screenward/apps (every user's); see docs/extensions.md. The agent starts an \
            app's extension when it needs it and the extension leaves when idle. In an account a guardian \
            manages, the system daemon starts them and lists them (a guardian: --user CHILD).
            """)

    @Flag(help: "Print one JSON object instead of a table.")
    var json = false

    @Option(help: "How many recent runs to show.")
    var runs = 20

    @Option(help: "A managed user's apps' extensions, from the system daemon (guardians).")
    var user: String?

    func run() throws {
        let env = ProcessInfo.processInfo.environment
        let listing: ExtensionsListing
        // A managed account's extensions are the daemon's to start and to record.
        if user != nil || DaemonAddress.socketManagingThisAccount(environment: env) != nil {
            let daemon = DaemonConnection()
            defer { daemon.close() }
            listing = try daemon.call(ChildMethods.extensions, ExtensionsQuery(user: user, runs: runs))
        } else {
            let home = ScreenwardHome.fromEnvironment(env)
            let (installed, problems) = InstalledApps.all(in: InstalledApps.forPerson(uid: getuid(), environment: env))
            let recent = try openLedgerIfPresent(home)?.recentExtensionRuns(limit: max(1, runs)) ?? []
            // A run is still going only while the agent that started it runs.
            let agentRuns = AgentLock.isHeld(in: home)
            let open = Set(recent.filter { $0.outcome == nil && agentRuns }.map { "\($0.client) \($0.point)" })
            listing = ExtensionsListing(
                installed: Array(installed.values), skipped: problems.map(\.description), runs: recent, running: open)
        }
        if json { return try printJSON(listing) }
        if listing.apps.isEmpty { print("No apps are installed (docs/extensions.md says how).") }
        for app in listing.apps {
            print("\(app.displayName) (\(app.bundleIdentifier))")
            if app.extensions.isEmpty { print("  no extensions") }
            for found in app.extensions {
                let state = app.running.contains(found.point.rawValue) ? "running" : "not running"
                print("  \(found.point): \(([found.executable] + found.arguments).joined(separator: " ")) (\(state))")
            }
        }
        for problem in listing.skipped { print("skipped: \(problem)") }
        if !listing.runs.isEmpty {
            print("\nRecent runs:")
            for run in listing.runs {
                print(
                    """
                      \(run.started)  \(run.app) \
                    \(run.point)\(run.pid.map { " pid \($0)" } ?? "")  \(run.outcome ?? "running")  \(run.detail)
                    """
                )
            }
        }
    }
}
