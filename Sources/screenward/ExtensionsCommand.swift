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
            app's extension when it needs it and the extension leaves when idle.
            """)

    @Flag(help: "Print one JSON object instead of a table.")
    var json = false

    @Option(help: "How many recent runs to show.")
    var runs = 20

    struct Listing: Encodable {
        struct App: Encodable {
            var bundleIdentifier: String
            var displayName: String
            var extensions: [AppExtension]
            /// The extension points running now.
            var running: [String]
        }
        struct Run: Encodable {
            var app: String
            var point: String
            var pid: Int32?
            var started: String
            var ended: String?
            /// Nil while it runs.
            var outcome: String?
            var detail: String
        }
        var apps: [App]
        var skipped: [String]
        var runs: [Run]
    }

    func run() throws {
        let env = ProcessInfo.processInfo.environment
        guard DaemonAddress.socketManagingThisAccount(environment: env) == nil else {
            throw ValidationError("in an account a guardian manages, the system daemon owns the apps' extensions, and it cannot list them yet")
        }
        let home = ScreenwardHome.fromEnvironment(env)
        let (installed, problems) = InstalledApps.all(in: InstalledApps.forPerson(uid: getuid(), environment: env))
        let recent = try openLedgerIfPresent(home)?.recentExtensionRuns(limit: max(1, runs)) ?? []
        // A run is still going only while the agent that started it runs.
        let agentRuns = AgentLock.isHeld(in: home)
        let open = Set(recent.filter { $0.outcome == nil && agentRuns }.map { "\($0.client) \($0.point)" })
        let apps = installed.values.sorted { $0.bundleIdentifier < $1.bundleIdentifier }.map { app in
            Listing.App(
                bundleIdentifier: app.bundleIdentifier, displayName: app.displayName,
                extensions: app.extensions.values.sorted { $0.point.rawValue < $1.point.rawValue },
                running: app.extensions.keys.map(\.rawValue).filter { open.contains("\(app.bundleIdentifier) \($0)") }.sorted())
        }
        let listing = Listing(
            apps: apps, skipped: problems.map(\.description),
            runs: recent.map {
                Listing.Run(
                    app: $0.client, point: $0.point, pid: $0.pid, started: iso8601($0.startedAt), ended: $0.endedAt.map(iso8601),
                    outcome: $0.outcome?.rawValue, detail: $0.detail)
            })
        if json { return try printJSON(listing) }
        if apps.isEmpty { print("No apps are installed (docs/extensions.md says how).") }
        for app in apps {
            print("\(app.displayName) (\(app.bundleIdentifier))")
            if app.extensions.isEmpty { print("  no extensions") }
            for found in app.extensions {
                let state = app.running.contains(found.point.rawValue) ? "running" : "not running"
                print("  \(found.point): \(([found.executable] + found.arguments).joined(separator: " ")) (\(state))")
            }
        }
        for problem in listing.skipped { print("skipped: \(problem)") }
        if !recent.isEmpty {
            print("\nRecent runs:")
            for run in recent {
                let outcome = run.outcome.map(\.rawValue) ?? (agentRuns ? "running" : "ended with its agent")
                print("  \(iso8601(run.startedAt))  \(run.client) \(run.point)\(run.pid.map { " pid \($0)" } ?? "")  \(outcome)  \(run.detail)")
            }
        }
    }
}
