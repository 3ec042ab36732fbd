import ArgumentParser
import Foundation
import ScreenwardCore
import ScreenwardIPC

/// `screenward app …`: what a guardian does with a managed user's Screen Time apps from
/// their own account.
struct AppCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app",
        abstract: texts("A managed user's Screen Time apps, from a guardian's own account.", context: "help"),
        subcommands: [Run.self])

    /// Runs an installed app as the guardian, acting for a managed user: its requests go to
    /// that user's state, as their app's, and what the guardian changes needs no code.
    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(
            // swift-format-ignore
            abstract: texts(
                "Run an installed app for a managed user (to set it up, change it or stop it): `screenward app run --user sam -- homework setup …`.",
                context: "help"))

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

        /// `name` as the shell would find it.
        static func find(_ name: String) -> URL? {
            if name.contains("/") {
                return FileManager.default.isExecutableFile(atPath: name) ? URL(fileURLWithPath: name) : nil
            }
            let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
            for folder in path.split(separator: ":") where !folder.isEmpty {
                let candidate = "\(folder)/\(name)"
                if FileManager.default.isExecutableFile(atPath: candidate) { return URL(fileURLWithPath: candidate) }
            }
            return nil
        }
    }
}
