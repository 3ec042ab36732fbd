import ArgumentParser
import Foundation
import ScreenwardCore
import ScreenwardIPC

struct ShieldsCommand: ParsableCommand {
    // swift-format-ignore
    static let configuration = CommandConfiguration(
        commandName: "shields",
        abstract: texts("List what is shielded now, and which store of which app shields it.", context: "help"),
        discussion: texts("The effective state is the union of every settings store of every app: an application is shielded when any store lists it or shields its category. Category names follow LC_ALL, LC_MESSAGES or LANG (en, ko, vi).", context: "help"))

    @Flag(help: ArgumentHelp(texts("Print one JSON object instead of a table.", context: "help")))
    var json = false

    @Option(help: ArgumentHelp(texts("A managed user's shields, from the system daemon (guardians).", context: "help")))
    var user: String?

    func run() throws {
        let env = ProcessInfo.processInfo.environment
        let home = ScreenwardHome.fromEnvironment(env)
        // A managed account's shields are the daemon's (the child's own files count for nothing).
        let managed = user != nil || DaemonAddress.socketManagingThisAccount(environment: env) != nil
        // Stores hold tokens, and tokens need the secret the agent creates on its first run.
        let hasSecret = managed || FileManager.default.fileExists(atPath: home.deviceSecretURL.path)
        let listing: ShieldListing
        if managed {
            let daemon = DaemonConnection()
            defer { daemon.close() }
            listing = try daemon.call(
                ChildMethods.shields, ShieldQuery(user: user, language: ShieldListing.language(fromEnvironment: env)))
        } else {
            listing = try loadShieldListing(home: home, environment: env)
        }
        for problem in listing.problems {
            let warning = texts("Warning: {problem}", context: "cli", ["problem": problem])
            FileHandle.standardError.write(Data((warning + "\n").utf8))
        }
        let covered = managed ? nil : coveredWindows(home: home)
        if json {
            var output = ShieldsJSON(listing)
            output.covered = covered
            try printJSON(output)
        } else if !hasSecret {
            // swift-format-ignore
            print(texts("Nothing can be shielded yet: there is no device secret ({path}); the agent creates it on its first run.", context: "cli", ["path": home.deviceSecretURL.path]))
        } else {
            printTable(listing)
            printCovered(covered)
        }
    }

    /// The windows the running agent covers now; nil when no agent runs (or it shows no shields).
    private func coveredWindows(home: ScreenwardHome) -> [CoveredWindow]? {
        guard AgentLock.isHeld(in: home) else { return nil }
        let agent = AgentConnection(bundleIdentifier: ShieldCommand.client)
        defer { agent.close() }
        do {
            return try agent.call(PresenterMethods.covered, Empty())
        } catch {
            // swift-format-ignore
            let warning = texts("Warning: could not ask the agent which windows it covers: {reason}", context: "cli", ["reason": ScreenwardCommand.spoken(error)])
            FileHandle.standardError.write(Data((warning + "\n").utf8))
            return nil
        }
    }

    private func printCovered(_ covered: [CoveredWindow]?) {
        guard let covered, !covered.isEmpty else { return }
        print("")
        print(texts("Covered now", context: "cli"))
        for window in covered {
            let values = [
                "name": window.name, "window": window.window, "frame": window.frame.description,
                "shield": window.shieldWindow,
            ]
            // A minimized window's shield is hidden with it: a line of its own, not a word added.
            let line =
                window.visible
                ? texts("{name}  window {window} at {frame}, shield {shield}", context: "cli", values)
                : texts("{name}  window {window} at {frame} (minimized), shield {shield}", context: "cli", values)
            print("  " + line)
        }
    }

    private func printTable(_ listing: ShieldListing) {
        guard !listing.isEmpty else {
            print(texts("Nothing is shielded.", context: "cli"))
            return
        }
        var first = true
        for (title, items) in [
            (texts("Applications", context: "cli"), listing.applications),
            (texts("Categories", context: "cli"), listing.categories),
            (texts("Web domains", context: "cli"), listing.webDomains),
        ]
        where !items.isEmpty {
            if !first { print("") }
            first = false
            print(title)
            // A domain is its own name: one column is enough. An unknown item's id is its token.
            let showID = items.contains { $0.isKnown && $0.id != $0.name }
            let nameWidth = min(32, items.map { displayWidth($0.name) }.max() ?? 0)
            let idWidth = min(40, items.map { $0.isKnown ? $0.id.count : 0 }.max() ?? 0)
            for item in items {
                let columns = [pad(item.name, nameWidth)] + (showID ? [pad(item.isKnown ? item.id : "", idWidth)] : [])
                print(
                    "  \(columns.joined(separator: "  "))  \(item.reasons.map(Self.describe).joined(separator: ", "))")
            }
        }
    }

    private func pad(_ text: String, _ width: Int) -> String {
        let used = displayWidth(text)
        return used >= width ? text : text + String(repeating: " ", count: width - used)
    }

    /// Terminal columns: East Asian wide characters (Hangul, CJK, full-width forms) take two.
    private func displayWidth(_ text: String) -> Int {
        text.reduce(0) { width, character in
            let wide =
                character.unicodeScalars.first.map { scalar in
                    switch scalar.value {
                    case 0x1100...0x115F, 0x2E80...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F,
                        0xFF00...0xFF60,
                        0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x20000...0x3FFFD:
                        true
                    default: false
                    }
                } ?? false
            return width + (wide ? 2 : 1)
        }
    }

    /// `org.example.worklog/social (category Social)`: a whole text for each way a store
    /// shields, so that a translation need not agree with a word put in by the code.
    static func describe(_ reason: ShieldListing.Reason) -> String {
        var values = ["app": reason.app, "store": reason.store]
        switch reason.rule {
        case .listed:
            return texts("{app}/{store} (listed)", context: "cli", values)
        case .category:
            values["category"] = reason.categoryName ?? reason.category ?? "?"
            return texts("{app}/{store} (category {category})", context: "cli", values)
        case .allCategories:
            return texts("{app}/{store} (all categories)", context: "cli", values)
        case .blocked:
            return texts("{app}/{store} (blocked)", context: "cli", values)
        }
    }
}

/// What is shielded now and why, read from the ledger (empty before the agent's first run).
func loadShieldListing(home: ScreenwardHome, environment env: [String: String]) throws -> ShieldListing {
    // The ledger first: a damaged one is reported even before the agent's first run made a secret.
    guard let ledger = try openLedgerIfPresent(home), FileManager.default.fileExists(atPath: home.deviceSecretURL.path)
    else {
        return ShieldListing()
    }
    let secret = try DeviceSecret.loadOrCreate(at: home.deviceSecretURL)
    let (catalog, _) = ApplicationCatalog.loadFromEnvironment(env)
    let directory = ItemDirectory(
        minter: TokenMinter(secret: secret), catalog: catalog, categories: try DataDirectory.categoryTable())
    do {
        return try ShieldListing.load(
            from: ledger, directory: directory, language: ShieldListing.language(fromEnvironment: env))
    } catch let error as LedgerError {
        throw error
    } catch {
        throw LedgerError.unreadable(path: home.ledgerURL.path, reason: ScreenwardCommand.spoken(error))
    }
}

/// The documented JSON shape of `screenward shields --json`.
struct ShieldsJSON: Encodable {
    struct Item: Encodable {
        var id: String
        var name: String
        var kind: String
        var token: String?
        var known: Bool
        var reasons: [Reason]
    }

    struct Reason: Encodable {
        var app: String
        var store: String
        var rule: String
        var category: String?
        var categoryName: String?

        enum CodingKeys: String, CodingKey {
            case app, store, rule, category
            case categoryName = "category_name"
        }
    }

    var applications: [Item]
    var categories: [Item]
    var webDomains: [Item]
    var problems: [String]
    /// The windows the running agent covers now; null when no agent runs.
    var covered: [CoveredWindow]?

    enum CodingKeys: String, CodingKey {
        case applications, categories, problems, covered
        case webDomains = "web_domains"
    }

    func encode(to encoder: any Encoder) throws {
        var keyed = encoder.container(keyedBy: CodingKeys.self)
        try keyed.encode(applications, forKey: .applications)
        try keyed.encode(categories, forKey: .categories)
        try keyed.encode(webDomains, forKey: .webDomains)
        try keyed.encode(problems, forKey: .problems)
        try keyed.encode(covered, forKey: .covered)  // null, not absent, without an agent
    }

    init(_ listing: ShieldListing) {
        func items(_ items: [ShieldListing.Item]) -> [Item] {
            items.map { item in
                Item(
                    id: item.id, name: item.name, kind: item.kind.rawValue, token: item.token, known: item.isKnown,
                    reasons: item.reasons.map {
                        Reason(
                            app: $0.app, store: $0.store, rule: $0.rule.rawValue, category: $0.category,
                            categoryName: $0.categoryName)
                    })
            }
        }
        applications = items(listing.applications)
        categories = items(listing.categories)
        webDomains = items(listing.webDomains)
        problems = listing.problems
    }
}
