import ArgumentParser
@_spi(Screenward) import FamilyControls
import Foundation
@_spi(Screenward) import ScreenwardCore
import ScreenwardIPC

/// `screenward app …`: the apps that hold Screen Time access, listed and revoked by the person
/// (their own) or a guardian (a managed user's), and a managed user's app run by a guardian.
struct AppCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app",
        abstract: texts(
            "The apps that hold Screen Time access: list, revoke, and run one for a managed user.", context: "help"),
        subcommands: [List.self, Revoke.self, Run.self])

    /// Whether the apps are a managed user's (the daemon's to tell), or this person's own (their agent's).
    static func isManaged(_ user: String?) -> Bool {
        user != nil || DaemonAddress.socketManagingThisAccount(environment: ProcessInfo.processInfo.environment) != nil
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: texts(
                "The apps that hold Screen Time access, since when, and what they restrict.", context: "help"))
        @Option(help: ArgumentHelp(texts("A managed user's (guardians).", context: "help"))) var user: String?
        @Flag(help: ArgumentHelp(texts("Print JSON.", context: "help"))) var json = false

        func run() throws {
            let apps: [AppAccess]
            if AppCommand.isManaged(user) {
                let daemon = DaemonConnection()
                defer { daemon.close() }
                do {
                    apps = try daemon.call(ChildMethods.apps, AppsQuery(user: user))
                } catch let error as ServiceError {
                    throw CLIError(ScreenwardCommand.spoken(error))
                }
            } else {
                apps = try RulesConnection().call(AccessMethods.list, Empty())
            }
            if json { return try printJSON(apps) }
            guard !apps.isEmpty else { return print(texts("No app holds Screen Time access.", context: "cli")) }
            for app in apps {
                let values = [
                    "app": app.app, "member": app.member, "since": iso8601(app.since), "count": String(app.shielded),
                    "stores": app.stores.joined(separator: ", "), "activities": app.activities.joined(separator: ", "),
                ]
                print(texts("{app}  {member}, since {since}", context: "cli", values))
                print(
                    "  "
                        + (app.stores.isEmpty
                            ? texts("restricts nothing now", context: "cli")
                            : texts("restricts {count} item(s) (stores: {stores})", context: "cli", values)))
                if !app.activities.isEmpty {
                    print("  " + texts("schedules: {activities}", context: "cli", values))
                }
            }
        }
    }

    struct Revoke: ParsableCommand {
        // swift-format-ignore
        static let configuration = CommandConfiguration(
            abstract: texts("Take an app's Screen Time access away: its stores and schedules go, and its tokens mean nothing more. A managed user's is a guardian's to take.", context: "help"))
        @Argument(
            help: ArgumentHelp(
                texts("The app's bundle identifier, as `screenward app list` shows it.", context: "help")))
        var app: String
        @Option(help: ArgumentHelp(texts("A managed user's (guardians).", context: "help"))) var user: String?

        func run() throws {
            if AppCommand.isManaged(user) {
                guard let user else {
                    // swift-format-ignore
                    throw CLIError(texts("a guardian takes an app's access away from a managed user: ask one (they run `screenward app revoke APP --user YOU`)", context: "cli"))
                }
                let daemon = DaemonConnection()
                defer { daemon.close() }
                do {
                    _ = try daemon.call(ChildMethods.revokeApp, AppRevocation(user: user, app: app))
                } catch let error as ServiceError {
                    throw CLIError(ScreenwardCommand.spoken(error))
                }
            } else {
                let apps = try RulesConnection().call(AccessMethods.list, Empty())
                guard apps.contains(where: { $0.app == app }) else {
                    throw CLIError(texts("{app} holds no Screen Time access", context: "cli", ["app": app]))
                }
                // As the app itself would: in a person's own account the agent takes them at their word.
                let agent = AgentConnection(bundleIdentifier: app)
                defer { agent.close() }
                do {
                    _ = try agent.call(AuthorizationMethods.revoke, Empty())
                } catch let error as ServiceError {
                    throw CLIError(ScreenwardCommand.spoken(error))
                }
            }
            print(texts("{app} no longer holds Screen Time access.", context: "cli", ["app": app]))
        }
    }

    /// Runs an installed app as the guardian, acting for a managed user: its requests go to
    /// that user's state, as their app's, and what the guardian changes needs no code.
    struct Run: ParsableCommand {
        // swift-format-ignore
        static let configuration = CommandConfiguration(
            abstract: texts("Run an installed app for a managed user (to set it up, change it or stop it): `screenward app run --user sam -- homework setup …`.", context: "help"))

        @Option(help: ArgumentHelp(texts("The managed user the app acts for.", context: "help"))) var user: String
        @Argument(
            parsing: .captureForPassthrough,
            help: ArgumentHelp(texts("The app's program and its arguments.", context: "help")))
        var command: [String] = []

        func validate() throws {
            guard !arguments.isEmpty else {
                throw ValidationError(
                    texts("name the app's program: screenward app run --user USER -- PROGRAM …", context: "cli"))
            }
        }

        /// The program and its arguments, without the `--` that separates them from ours.
        private var arguments: [String] { command.first == "--" ? Array(command.dropFirst()) : command }

        func run() throws {
            // Asked first, for a clear answer: the daemon checks each request again anyway.
            let connection = DaemonConnection()
            let managed: [ManagedUser]
            do {
                defer { connection.close() }
                managed = try connection.call(ChildMethods.list, Empty())
            } catch let error as ServiceError {
                throw CLIError(ScreenwardCommand.spoken(error))
            }
            guard managed.contains(where: { $0.name == user }) else {
                throw CLIError(
                    texts("{user} is not a managed user (screenward child list)", context: "cli", ["user": user]))
            }
            guard let program = Self.find(arguments[0]) else {
                throw CLIError(texts("no program {program} in PATH", context: "cli", ["program": arguments[0]]))
            }
            var environment = ProcessInfo.processInfo.environment
            environment[AppProof.managedUserVariable] = user
            try SiblingProgram.run(program, Array(arguments.dropFirst()), environment: environment)
        }

        /// `name` as the shell would find it (on the search path the catalog reads too).
        static func find(_ name: String) -> URL? {
            if name.contains("/") {
                return FileManager.default.isExecutableFile(atPath: name) ? URL(fileURLWithPath: name) : nil
            }
            return ApplicationCatalog.defaultSearchPath().lazy.map { "\($0)/\(name)" }
                .first { FileManager.default.isExecutableFile(atPath: $0) }.map { URL(fileURLWithPath: $0) }
        }
    }
}
