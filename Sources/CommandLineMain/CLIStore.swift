import ArgumentParser
@_spi(Screenward) import FamilyControls
import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardCore
import ScreenwardIPC

/// An error whose message is the whole story.
struct CLIError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// `--app ID`, repeatable: the applications a `shield` or `block` command names.
struct ApplicationOptions: ParsableArguments {
    @Option(name: .customLong("app"), help: ArgumentHelp("An application id (repeatable).", valueName: "id"))
    var applications: [String] = []

    func validate() throws {
        guard !applications.isEmpty else { throw ValidationError("name at least one application with --app ID") }
        let count = Set(applications).count
        guard count <= ManagedSettingsStore.maximumTokens else {
            throw ValidationError(
                """
                \(count) applications named; one settings store lists at most \
                \(ManagedSettingsStore.maximumTokens) applications
                """
            )
        }
    }

    /// The ids once each, in the order given.
    var ids: [String] {
        var seen: Set<String> = []
        return applications.filter { seen.insert($0).inserted }
    }
}

/// The two lists of applications the command line keeps in its store.
enum CLIList {
    /// `shield.applications`: covered by a shield.
    case shielded
    /// `application.blockedApplications`: may not be used at all.
    case blocked

    var participle: String { self == .shielded ? "shielded" : "blocked" }
    var rule: ShieldListing.Reason.Rule { self == .shielded ? .listed : .blocked }
    var removeCommand: String {
        self == .shielded ? "screenward shield remove --app ID" : "screenward block remove --app ID"
    }
}

/// The store `screenward.cli` of the client `org.screenward.cli`, through the agent.
struct CLIStore {
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

    // MARK: Adding and removing

    /// Adds the applications to `list`, then prints what the list holds.
    func add(_ ids: [String], to list: CLIList) throws {
        defer { close() }
        let tokens = try tokens(for: ids)
        let current = try applications(in: list)
        let updated = current.union(tokens.map(\.token))
        guard updated.count <= ManagedSettingsStore.maximumTokens else {
            throw CLIError(
                "\(ShieldCommand.storeName) would list \(updated.count) \(list.participle) applications; "
                    + "one settings store lists at most \(ManagedSettingsStore.maximumTokens): "
                    + "remove some first (\(list.removeCommand))")
        }
        let already = tokens.filter { current.contains($0.token) }.map(\.id)
        if !already.isEmpty {
            print("Already \(list.participle) by \(ShieldCommand.storeName): \(already.joined(separator: ", "))")
        }
        if updated != current { try set(updated, in: list) }
        printState(of: list)
    }

    /// Removes the applications from `list` (all must be in it), then prints what it holds.
    func remove(_ ids: [String], from list: CLIList) throws {
        defer { close() }
        let tokens = try tokens(for: ids)
        let current = try applications(in: list)
        let missing = tokens.filter { !current.contains($0.token) }.map(\.id)
        guard missing.isEmpty else { throw CLIError(notListedMessage(missing, list)) }
        try set(current.subtracting(tokens.map(\.token)), in: list)
        printState(of: list)
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

    private func applications(in list: CLIList) throws -> Set<ApplicationToken> {
        let contents = try read()
        switch list {
        case .shielded: return contents.shield.applications ?? []
        case .blocked: return Set((contents.application.blockedApplications ?? []).compactMap(\.token))
        }
    }

    private func set(_ tokens: Set<ApplicationToken>, in list: CLIList) throws {
        let setting: StoreChange.Setting
        switch list {
        case .shielded:
            setting = .shieldApplications(tokens.isEmpty ? nil : tokens)
        case .blocked:
            // Entries by bundle identifier (not written by the command line) are kept.
            let others = (try read().application.blockedApplications ?? []).filter { $0.token == nil }
            let blocked = others.union(tokens.map { Application(token: $0) })
            setting = .blockedApplications(blocked.isEmpty ? nil : blocked)
        }
        _ = try call(StoreMethods.change, StoreChange(name: ShieldCommand.storeName, settings: [setting]))
    }

    // MARK: Saying what is what

    private func listing() -> ShieldListing? {
        try? loadShieldListing(home: home, environment: ProcessInfo.processInfo.environment)
    }

    private static func isCLIStore(_ reason: ShieldListing.Reason) -> Bool {
        reason.app == ShieldCommand.client && reason.store == ShieldCommand.storeName
    }

    /// `chat.desktop is not shielded by screenward.cli; it is shielded by
    /// org.example.worklog/social (category Social); …`.
    func notListedMessage(_ ids: [String], _ list: CLIList) -> String {
        let listing = listing()
        let lines = ids.map { id -> String in
            let head = "\(id) is not \(list.participle) by \(ShieldCommand.storeName)"
            guard let listing else { return head }
            let others = (listing.applications.first { $0.id == id }?.reasons ?? [])
                .filter { !Self.isCLIStore($0) && ($0.rule == .blocked) == (list == .blocked) }
            guard !others.isEmpty else {
                return head + "; no other store \(list == .shielded ? "shields" : "blocks") it either"
            }
            return head + "; it is \(list.participle) by " + others.map(ShieldsCommand.describe).joined(separator: ", ")
                + "; only that app can lift it"
        }
        return lines.joined(separator: "\n") + "\nNothing was changed."
    }

    /// What the list holds now, by name.
    func printState(of list: CLIList) {
        guard let listing = listing() else {
            if let count = try? applications(in: list).count {
                print(
                    "\(ShieldCommand.storeName) lists \(count) \(list.participle) application\(count == 1 ? "" : "s").")
            }
            return
        }
        let items = listing.applications.filter { $0.reasons.contains { Self.isCLIStore($0) && $0.rule == list.rule } }
        guard !items.isEmpty else {
            print("Nothing is \(list.participle) by \(ShieldCommand.storeName).")
            return
        }
        print("\(list.participle.capitalized) by \(ShieldCommand.storeName):")
        for item in items {
            print(item.name == item.id ? "  \(item.id)" : "  \(item.name)  \(item.id)")
        }
    }
}
