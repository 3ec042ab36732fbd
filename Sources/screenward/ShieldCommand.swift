import ArgumentParser
@_spi(Screenward) import FamilyControls
import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardCore
import ScreenwardIPC

/// Shielding from the command line without writing code: the command line is a Screen
/// Time client of its own, `org.screenward.cli`, with one settings store, `screenward.cli`.
///
/// The person typing is the person whose use is managed, so the command authorises
/// itself with `.individual`, exactly as an app does with
/// `AuthorizationCenter.shared.requestAuthorization(for: .individual)`: the agent asks
/// nobody else for `.individual`. Its store counts in the union like any app's store
/// (`screenward shields` names it `org.screenward.cli/screenward.cli`).
struct ShieldCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shield",
        abstract: "Shield applications from the command line (the settings store screenward.cli).",
        discussion: """
            The command line acts as the Screen Time client org.screenward.cli, authorised as the person \
            themself (.individual), and changes its one settings store, screenward.cli. Other apps' stores \
            are untouched: `screenward shields` shows the union of all. Application ids are as \
            `screenward usage --json` shows them (firefox.desktop, wmclass:<class>). The agent must run.
            """,
        subcommands: [Add.self, Remove.self])

    static let client = "org.screenward.cli"
    static let storeName = "screenward.cli"

    struct Applications: ParsableArguments {
        @Option(name: .customLong("app"), help: ArgumentHelp("An application id (repeatable).", valueName: "id"))
        var applications: [String] = []

        func validate() throws {
            guard !applications.isEmpty else { throw ValidationError("name at least one application with --app ID") }
            let count = Set(applications).count
            guard count <= ManagedSettingsStore.maximumTokens else {
                throw ValidationError(
                    "\(count) applications named; one settings store shields at most \(ManagedSettingsStore.maximumTokens) applications")
            }
        }

        /// The ids once each, in the order given.
        var ids: [String] {
            var seen: Set<String> = []
            return applications.filter { seen.insert($0).inserted }
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Shield applications: add them to the store screenward.cli.",
            discussion: "Applications the store already shields stay shielded; the command prints what the store shields now.")

        @OptionGroup var options: Applications

        func run() throws {
            let session = try CLIStore()
            defer { session.close() }
            let tokens = try session.tokens(for: options.ids)
            let contents = try session.read()
            let current = contents.shield.applications ?? []
            let updated = current.union(tokens.map(\.token))
            guard updated.count <= ManagedSettingsStore.maximumTokens else {
                throw CLIError(
                    "\(ShieldCommand.storeName) would shield \(updated.count) applications; one settings store shields at most "
                        + "\(ManagedSettingsStore.maximumTokens): remove some first (screenward shield remove --app ID)")
            }
            let already = tokens.filter { current.contains($0.token) }.map(\.id)
            if !already.isEmpty {
                print("Already shielded by \(ShieldCommand.storeName): \(already.joined(separator: ", "))")
            }
            if updated != current { try session.setApplications(updated) }
            session.printState()
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stop shielding applications: remove them from the store screenward.cli.",
            discussion: """
                Only the store screenward.cli changes: an application another app's store shields stays \
                shielded (the command says which store). Nothing changes when a named application is not \
                shielded by screenward.cli.
                """)

        @OptionGroup var options: Applications

        func run() throws {
            let session = try CLIStore()
            defer { session.close() }
            let tokens = try session.tokens(for: options.ids)
            let current = try session.read().shield.applications ?? []
            let missing = tokens.filter { !current.contains($0.token) }.map(\.id)
            guard missing.isEmpty else { throw CLIError(session.notShieldedMessage(missing)) }
            let updated = current.subtracting(tokens.map(\.token))
            try session.setApplications(updated)
            session.printState()
        }
    }
}

/// An error whose message is the whole story.
struct CLIError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The store `screenward.cli` of the client `org.screenward.cli`, through the agent.
private struct CLIStore {
    let agent = AgentConnection(bundleIdentifier: ShieldCommand.client)

    init() throws {
        // Idempotent: a second request keeps the grant (and so the tokens) of the first.
        _ = try call(AuthorizationMethods.request, .individual)
    }

    var home: ScreenwardHome { agent.home }

    func close() { agent.close() }

    func call<Request, Reply>(_ method: ServiceMethod<Request, Reply>, _ request: Request) throws -> Reply {
        try agent.call(method, request)
    }

    /// The client's token for each id; the agent's message for an id it does not know.
    func tokens(for ids: [String]) throws -> [(id: String, token: ApplicationToken)] {
        try ids.map { id in
            let selection = try call(AuthorizationMethods.issueSelection, SelectionRequest(applications: [id]))
            guard let token = selection.applicationTokens.first else {
                throw CLIError("the agent issued no token for \"\(id)\"")
            }
            return (id, token)
        }
    }

    func read() throws -> StoreContents {
        try call(StoreMethods.read, StoreReference(name: ShieldCommand.storeName))
    }

    func setApplications(_ applications: Set<ApplicationToken>) throws {
        let change = StoreChange(name: ShieldCommand.storeName, settings: [.shieldApplications(applications.isEmpty ? nil : applications)])
        _ = try call(StoreMethods.change, change)
    }

    private func listing() -> ShieldListing? {
        try? loadShieldListing(home: home, environment: ProcessInfo.processInfo.environment)
    }

    private static func isCLIStore(_ reason: ShieldListing.Reason) -> Bool {
        reason.app == ShieldCommand.client && reason.store == ShieldCommand.storeName
    }

    /// `chat.desktop is not shielded by screenward.cli; it is shielded by org.example.worklog/social (category Social); …`.
    func notShieldedMessage(_ ids: [String]) -> String {
        let listing = listing()
        let lines = ids.map { id -> String in
            let head = "\(id) is not shielded by \(ShieldCommand.storeName)"
            guard let listing else { return head }
            let others = (listing.applications.first { $0.id == id }?.reasons ?? []).filter { !Self.isCLIStore($0) }
            guard !others.isEmpty else { return head + "; no other store shields it either" }
            return head + "; it is shielded by " + others.map(ShieldsCommand.describe).joined(separator: ", ")
                + "; only that app can lift it"
        }
        return lines.joined(separator: "\n") + "\nNothing was changed."
    }

    /// What the store shields now, by name.
    func printState() {
        guard let listing = listing() else {
            if let count = (try? read())?.shield.applications?.count {
                print("\(ShieldCommand.storeName) shields \(count) application\(count == 1 ? "" : "s").")
            }
            return
        }
        let items = listing.applications.filter { $0.reasons.contains { Self.isCLIStore($0) && $0.rule == .listed } }
        guard !items.isEmpty else {
            print("Nothing is shielded by \(ShieldCommand.storeName).")
            return
        }
        print("Shielded by \(ShieldCommand.storeName):")
        for item in items {
            print(item.name == item.id ? "  \(item.id)" : "  \(item.name)  \(item.id)")
        }
    }
}
