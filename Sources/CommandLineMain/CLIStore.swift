import ArgumentParser
@_spi(Screenward) import FamilyControls
import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardCore
import ScreenwardIPC

/// `--app ID`, repeatable: the applications a `shield` or `block` command names.
struct ApplicationOptions: ParsableArguments {
    @Option(
        name: .customLong("app"),
        help: ArgumentHelp(texts("An application id (repeatable).", context: "help"), valueName: "id"))
    var applications: [String] = []

    func validate() throws {
        guard !applications.isEmpty else {
            throw ValidationError(texts("name at least one application with --app ID", context: "cli"))
        }
        let count = Set(applications).count
        guard count <= ManagedSettingsStore.maximumTokens else {
            let values = ["count": String(count), "maximum": String(ManagedSettingsStore.maximumTokens)]
            // swift-format-ignore
            throw ValidationError(texts("{count} applications named; one settings store lists at most {maximum} applications", context: "cli", values))
        }
    }

    /// The ids once each, in the order given.
    var ids: [String] {
        var seen: Set<String> = []
        return applications.filter { seen.insert($0).inserted }
    }
}

/// The two lists of applications the command line keeps in its store. What is said of
/// each is written whole for each (not "shielded" or "blocked" put in one sentence), so that
/// a translation can say it its own way.
enum CLIList {
    /// `shield.applications`: covered by a shield.
    case shielded
    /// `application.blockedApplications`: may not be used at all.
    case blocked

    var rule: ShieldListing.Reason.Rule { self == .shielded ? .listed : .blocked }
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
            let values = [
                "store": ShieldCommand.storeName, "count": String(updated.count),
                "maximum": String(ManagedSettingsStore.maximumTokens),
            ]
            // swift-format-ignore
            let message = switch list {
            case .shielded: texts("{store} would list {count} shielded applications; one settings store lists at most {maximum}: remove some first (screenward shield remove --app ID)", context: "cli", values)
            case .blocked: texts("{store} would list {count} blocked applications; one settings store lists at most {maximum}: remove some first (screenward block remove --app ID)", context: "cli", values)
            }
            throw CLIError(message)
        }
        let already = tokens.filter { current.contains($0.token) }.map(\.id)
        if !already.isEmpty {
            let values = ["store": ShieldCommand.storeName, "applications": already.joined(separator: ", ")]
            switch list {
            case .shielded: print(texts("Already shielded by {store}: {applications}", context: "cli", values))
            case .blocked: print(texts("Already blocked by {store}: {applications}", context: "cli", values))
            }
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
                throw CLIError(texts("the agent issued no token for \"{id}\"", context: "cli", ["id": id]))
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
            let values = ["id": id, "store": ShieldCommand.storeName]
            guard let listing else {
                // Without the listing, who else lists it is not known: only that this store does not.
                return switch list {
                case .shielded: texts("{id} is not shielded by {store}", context: "cli", values)
                case .blocked: texts("{id} is not blocked by {store}", context: "cli", values)
                }
            }
            let others = (listing.applications.first { $0.id == id }?.reasons ?? [])
                .filter { !Self.isCLIStore($0) && ($0.rule == .blocked) == (list == .blocked) }
            guard !others.isEmpty else {
                // swift-format-ignore
                return switch list {
                case .shielded: texts("{id} is not shielded by {store}; no other store shields it either", context: "cli", values)
                case .blocked: texts("{id} is not blocked by {store}; no other store blocks it either", context: "cli", values)
                }
            }
            let owners = values.merging(["others": others.map(ShieldsCommand.describe).joined(separator: ", ")]) { $1 }
            // swift-format-ignore
            return switch list {
            case .shielded: texts("{id} is not shielded by {store}; it is shielded by {others}; only that app can lift it", context: "cli", owners)
            case .blocked: texts("{id} is not blocked by {store}; it is blocked by {others}; only that app can lift it", context: "cli", owners)
            }
        }
        return (lines + [texts("Nothing was changed.", context: "cli")]).joined(separator: "\n")
    }

    /// What the list holds now, by name.
    func printState(of list: CLIList) {
        let store = ["store": ShieldCommand.storeName]
        guard let listing = listing() else {
            if let count = try? applications(in: list).count {
                let values = store.merging(["count": String(count)]) { $1 }
                switch (list, count) {
                case (.shielded, 1): print(texts("{store} lists 1 shielded application.", context: "cli", values))
                case (.shielded, _):
                    print(texts("{store} lists {count} shielded applications.", context: "cli", values))
                case (.blocked, 1): print(texts("{store} lists 1 blocked application.", context: "cli", values))
                case (.blocked, _): print(texts("{store} lists {count} blocked applications.", context: "cli", values))
                }
            }
            return
        }
        let items = listing.applications.filter { $0.reasons.contains { Self.isCLIStore($0) && $0.rule == list.rule } }
        guard !items.isEmpty else {
            switch list {
            case .shielded: print(texts("Nothing is shielded by {store}.", context: "cli", store))
            case .blocked: print(texts("Nothing is blocked by {store}.", context: "cli", store))
            }
            return
        }
        switch list {
        case .shielded: print(texts("Shielded by {store}:", context: "cli", store))
        case .blocked: print(texts("Blocked by {store}:", context: "cli", store))
        }
        for item in items {
            print(item.name == item.id ? "  \(item.id)" : "  \(item.name)  \(item.id)")
        }
    }
}
