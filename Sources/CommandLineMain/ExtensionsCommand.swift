import ArgumentParser
import Foundation
import Glibc
import ScreenwardCore
import ScreenwardIPC

struct ExtensionsCommand: ParsableCommand {
    // swift-format-ignore
    static let configuration = CommandConfiguration(
        commandName: "extensions",
        abstract: texts("List the installed apps, their extensions, which run now, and their recent runs and failures.", context: "help"),
        discussion: texts("Apps are installed by a manifest in $XDG_DATA_HOME/screenward/apps (your own) or /usr/share/screenward/apps (every user's); see docs/extensions.md. The agent starts an app's extension when it needs it and the extension leaves when idle. In an account a guardian manages, the system daemon starts them and lists them (a guardian: --user CHILD).", context: "help"))

    @Flag(help: ArgumentHelp(texts("Print one JSON object instead of a table.", context: "help")))
    var json = false

    @Option(help: ArgumentHelp(texts("How many recent runs to show.", context: "help")))
    var runs = 20

    @Option(
        help: ArgumentHelp(
            texts("A managed user's apps' extensions, from the system daemon (guardians).", context: "help")))
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
        if listing.apps.isEmpty { print(texts("No apps are installed (docs/extensions.md says how).", context: "cli")) }
        for app in listing.apps {
            // A name and an id: nothing to translate.
            print("\(app.displayName) (\(app.bundleIdentifier))")
            if app.extensions.isEmpty { print("  " + texts("no extensions", context: "cli")) }
            for found in app.extensions {
                let values = [
                    "point": "\(found.point)", "command": ([found.executable] + found.arguments).joined(separator: " "),
                ]
                let line =
                    app.running.contains(found.point.rawValue)
                    ? texts("{point}: {command} (running)", context: "cli", values)
                    : texts("{point}: {command} (not running)", context: "cli", values)
                print("  " + line)
            }
        }
        for problem in listing.skipped { print(texts("skipped: {problem}", context: "cli", ["problem": problem])) }
        if !listing.runs.isEmpty {
            print("")
            print(texts("Recent runs:", context: "cli"))
            for run in listing.runs {
                let outcome = Self.outcome(run.outcome)
                // Without a pid, the line is values alone: nothing in it to translate.
                let line =
                    run.pid.map {
                        texts(
                            "{started}  {app} {point} pid {pid}  {outcome}  {detail}", context: "cli",
                            [
                                "started": run.started, "app": run.app, "point": run.point, "pid": String($0),
                                "outcome": outcome, "detail": run.detail,
                            ])
                    } ?? "\(run.started)  \(run.app) \(run.point)  \(outcome)  \(run.detail)"
                print("  " + line)
            }
        }
    }

    /// How a run ended, as a word for people (the JSON keeps the ledger's, for scripts).
    private static func outcome(_ outcome: String?) -> String {
        guard let outcome else { return texts("running", context: "cli") }
        switch ExtensionRunOutcome(rawValue: outcome) {
        case .exited?: return texts("exited", context: "cli")
        case .crashed?: return texts("crashed", context: "cli")
        case .killed?: return texts("killed", context: "cli")
        case .failedToStart?: return texts("could not start", context: "cli")
        case .stopped?: return texts("stopped", context: "cli")
        case .callbackFailed?: return texts("callback not delivered", context: "cli")
        // One a newer agent or daemon recorded: as it is.
        case nil: return outcome
        }
    }
}
