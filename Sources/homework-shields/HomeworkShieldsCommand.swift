import ArgumentParser
@_spi(Screenward) import FamilyControls
import Foundation
import HomeworkShields
import ManagedSettings

/// Homework's custom shields (WWDC21) as a program: shield applications with its store,
/// and run its two shield extensions, each in a process of its own as on iOS.
@main
struct HomeworkShieldsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "homework-shields",
        abstract: "The custom shields of the Homework demo app (WWDC21 \"Meet the Screen Time API\") on Screenward.",
        discussion: """
            Run `homework-shields configuration` and `homework-shields actions` in the background (the two \
            shield extensions), then `homework-shields shield --app ID`. A shielded application shows \
            Homework's shield; "Ask for access" redraws it as waiting for a guardian.
            """,
        subcommands: [Shield.self, Configuration.self, Actions.self, Stop.self, Revoke.self])

    static let bundleIdentifier = "org.example.homework"
    static let store = ManagedSettingsStore.Name("homework")

    static func prepare() {
        ScreenwardApp.bundleIdentifier = bundleIdentifier
    }

    struct Shield: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Authorise Homework and shield the applications given (ids as in `screenward usage --json`).")

        @Option(name: .customLong("app"), help: "An application to shield; repeatable.")
        var applications: [String] = []

        @Flag(help: "Ask for .child, as Homework does on iOS: in an account a guardian manages, a guardian approves with their password.")
        var child = false

        func validate() throws {
            guard !applications.isEmpty else { throw ValidationError("name at least one application with --app") }
        }

        func run() async throws {
            HomeworkShieldsCommand.prepare()
            // Homework asks for .child on iOS; on a person's own desktop it is .individual.
            try await AuthorizationCenter.shared.requestAuthorization(for: child ? .child : .individual)
            // The activity picker's part: the applications chosen.
            let selection = try await ScreenwardApp.client.call(AuthorizationMethods.issueSelection, SelectionRequest(applications: applications))
            ManagedSettingsStore(named: HomeworkShieldsCommand.store).shield.applications = selection.applicationTokens
            print("Homework shields \(applications.joined(separator: ", ")).")
        }
    }

    struct Configuration: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Run the shield configuration extension (until stopped).")

        func run() throws {
            HomeworkShieldsCommand.prepare()
            HomeworkShieldConfiguration.main()
        }
    }

    struct Actions: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Run the shield action extension (until stopped).")

        func run() throws {
            HomeworkShieldsCommand.prepare()
            HomeworkShieldActions.main()
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Give up Homework's authorization (its shields go with it); under .child a guardian approves.")

        func run() async throws {
            HomeworkShieldsCommand.prepare()
            try await AuthorizationCenter.shared.revokeAuthorization()
            print("Homework is no longer authorised.")
        }
    }

    struct Stop: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove Homework's shields and forget the requests for access.")

        func run() throws {
            HomeworkShieldsCommand.prepare()
            ManagedSettingsStore(named: HomeworkShieldsCommand.store).clearAllSettings()
            try HomeworkRequests.standard.clear()
            print("Homework shields nothing.")
        }
    }
}
