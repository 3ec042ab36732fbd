import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardBasics
import UsageLedger

/// What is effectively shielded (or blocked), by name, and which store of which app
/// is responsible: what `screenward shields` prints.
///
/// Applications shielded through a category are found by expanding the category
/// over every application Screenward knows: the desktop catalog, the applications
/// seen in use (the ledger's `application` table) and those named in tokens issued
/// to apps. A token nothing names any more is still listed, as an unknown item.
public struct ShieldListing: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Hashable, Codable {
        case application, category
        case webDomain = "web_domain"
    }

    public struct Reason: Sendable, Hashable, Comparable, Codable {
        public enum Rule: String, Sendable, Hashable, Codable {
            /// Listed by token (`shield.applications`, `shield.webDomains`, a category in `.specific`).
            case listed
            /// Covered by a `.specific` category policy through `category`.
            case category
            /// Covered by an `.all(except:)` category policy.
            case allCategories = "all_categories"
            /// In `application.blockedApplications`: may not run at all.
            case blocked
        }

        /// The bundle identifier of the app that owns the store.
        public var app: String
        public var store: String
        public var rule: Rule
        /// For `.category`: the category's id (`Social`) and display name.
        public var category: String?
        public var categoryName: String?

        public init(app: String, store: String, rule: Rule, category: String? = nil, categoryName: String? = nil) {
            self.app = app
            self.store = store
            self.rule = rule
            self.category = category
            self.categoryName = categoryName
        }

        public static func < (a: Reason, b: Reason) -> Bool {
            (a.app, a.store, a.rule.order, a.category ?? "") < (b.app, b.store, b.rule.order, b.category ?? "")
        }
    }

    public struct Item: Sendable, Hashable, Codable {
        public var kind: Kind
        /// An application's public id (`firefox.desktop`, `wmclass:Foo`), a category id
        /// (`Game`; `*` for all categories), a domain; `token:<token>` for an unknown item.
        public var id: String
        /// A display name; `unknown item (AbCd1234…)` when nothing names the token.
        public var name: String
        /// The device-wide token (nil for "all categories" and apps blocked by bundle id only).
        public var token: String?
        /// Whether anything names the item (false: a token no catalog, ledger or label knows).
        public var isKnown: Bool
        public var reasons: [Reason]

        public init(kind: Kind, id: String, name: String, token: String?, isKnown: Bool = true, reasons: [Reason]) {
            self.kind = kind
            self.id = id
            self.name = name
            self.token = token
            self.isKnown = isKnown
            self.reasons = reasons
        }
    }

    /// The id the "all categories" item has.
    public static let allCategoriesID = "*"

    public var applications: [Item]
    public var categories: [Item]
    public var webDomains: [Item]
    /// Stores that could not be read, and other things the reader should know.
    public var problems: [String]

    public var isEmpty: Bool { applications.isEmpty && categories.isEmpty && webDomains.isEmpty }

    public init(applications: [Item] = [], categories: [Item] = [], webDomains: [Item] = [], problems: [String] = []) {
        self.applications = applications
        self.categories = categories
        self.webDomains = webDomains
        self.problems = problems
    }
}

extension ShieldListing.Reason.Rule {
    fileprivate var order: Int {
        switch self {
        case .listed: 0
        case .category: 1
        case .allCategories: 2
        case .blocked: 3
        }
    }
}

// MARK: - Computing the listing

extension ShieldListing {
    /// The listing, from the stores (device-wide tokens), what issued tokens name
    /// (`Ledger.labels(kind:)`: device token → application id, category id or domain),
    /// the catalog and category table, and the applications seen in use.
    ///
    /// - Parameter language: for category names (`en`, `ko`, `vi`; see `language(fromEnvironment:)`).
    public static func compute(
        stores: [StoreSettings], labels: [TokenKind: [String: String]], directory: ItemDirectory,
        knownApplications: [KnownApplication], language: String, problems: [String] = []
    ) -> ShieldListing {
        Builder(stores: stores, labels: labels, directory: directory, language: language)
            .listing(knownApplications: knownApplications, problems: problems)
    }

    /// Reads the stores, labels and known applications from `ledger` and computes the listing.
    public static func load(from ledger: Ledger, directory: ItemDirectory, language: String) throws -> ShieldListing {
        var problems: [String] = []
        let stores = try ledger.allStores(problems: &problems)
        var labels: [TokenKind: [String: String]] = [:]
        for kind in TokenKind.allCases { labels[kind] = try ledger.labels(kind: kind) }
        return compute(
            stores: stores, labels: labels, directory: directory, knownApplications: try ledger.knownApplications(),
            language: language, problems: problems)
    }

    /// The language for display names: gettext's choice, as for every text (`Translations.language`).
    public static func language(fromEnvironment environment: [String: String]) -> String {
        Translations.language(fromEnvironment: environment)
    }

    /// The name of a token nothing names: enough of it to tell two apart.
    public static func unknownName(token: String) -> String {
        "unknown item (\(token.prefix(8))…)"
    }
}

/// One computation of the listing.
private struct Builder {
    let stores: [StoreSettings]
    let labels: [TokenKind: [String: String]]
    let directory: ItemDirectory
    let language: String
    let shields: EffectiveShields
    /// Category device token → category id.
    let categoryIDs: [String: String]

    init(stores: [StoreSettings], labels: [TokenKind: [String: String]], directory: ItemDirectory, language: String) {
        self.stores = stores
        self.labels = labels
        self.directory = directory
        self.language = language
        shields = EffectiveShields(stores: stores)
        var ids = labels[.category] ?? [:]
        for (id, token) in directory.categoryTokensByID() { ids[token.opaqueValue] = id }
        categoryIDs = ids
    }

    /// An application the listing can name.
    struct Candidate {
        var id: String
        var name: String
        var token: String
        var categoryID: String
    }

    func listing(knownApplications: [KnownApplication], problems: [String]) -> ShieldListing {
        ShieldListing(
            applications: applications(knownApplications), categories: categories(), webDomains: webDomains(),
            problems: problems)
    }

    // MARK: Applications

    /// Every application Screenward can name, by device token: the catalog first, then
    /// the applications seen in use, then those only named by issued tokens.
    func candidates(_ known: [KnownApplication]) -> [String: Candidate] {
        var result: [String: Candidate] = [:]
        var ids: Set<String> = []
        // One candidate per token and per id (a row under a token from an older device
        // secret must not list the application twice).
        func add(_ app: AppIdentity, token: String) {
            guard result[token] == nil, ids.insert(app.publicID).inserted else { return }
            result[token] = Candidate(
                id: app.publicID, name: app.displayName, token: token, categoryID: directory.categoryID(of: app))
        }
        for entry in directory.catalog.entries {
            let app = AppIdentity(
                key: .desktopEntry(entry.id), displayName: entry.name, iconName: entry.iconName,
                categories: entry.categories)
            add(app, token: directory.minter.applicationToken(for: app).opaqueValue)
        }
        for known in known {
            add(
                Self.identity(publicID: known.publicID, displayName: known.displayName, categories: known.categories),
                token: known.token)
        }
        for (token, id) in (labels[.application] ?? [:]).sorted(by: { $0.key < $1.key }) {
            add(
                directory.application(publicID: id) ?? Self.identity(publicID: id, displayName: id, categories: []),
                token: token)
        }
        return result
    }

    /// The identity a public id stands for, when the catalog no longer has it.
    static func identity(publicID: String, displayName: String, categories: [String]) -> AppIdentity {
        let key: AppIdentity.Key =
            if publicID.hasPrefix("wmclass:") {
                .windowClass(String(publicID.dropFirst("wmclass:".count)))
            } else if publicID.hasPrefix("exe:") { .executable(String(publicID.dropFirst("exe:".count))) } else {
                .desktopEntry(publicID)
            }
        return AppIdentity(key: key, displayName: displayName, categories: categories)
    }

    func applications(_ known: [KnownApplication]) -> [ShieldListing.Item] {
        let candidates = candidates(known)
        let byPublicID = Dictionary(candidates.values.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        var items: [String: ShieldListing.Item] = [:]
        func item(for token: String) -> ShieldListing.Item {
            if let candidate = candidates[token] {
                return ShieldListing.Item(
                    kind: .application, id: candidate.id, name: candidate.name, token: token, reasons: [])
            }
            if let id = labels[.application]?[token] {
                return ShieldListing.Item(
                    kind: .application, id: id, name: byPublicID[id]?.name ?? id, token: token, reasons: [])
            }
            return unknownItem(.application, token: token)
        }

        for candidate in candidates.values {
            let categories: Set<ActivityCategoryToken> = [
                directory.minter.categoryToken(forCategory: candidate.categoryID)
            ]
            let reasons = shields.reasons(
                forApplication: ApplicationToken(opaqueValue: candidate.token), categories: categories)
            guard !reasons.isEmpty else { continue }
            items[candidate.token] = ShieldListing.Item(
                kind: .application, id: candidate.id, name: candidate.name, token: candidate.token,
                reasons: reasons.map(reason))
        }
        // Listed tokens nothing names: still shielded, still listed.
        for store in stores {
            for token in store.shield.applications ?? [] where items[token.opaqueValue] == nil {
                var entry = item(for: token.opaqueValue)
                entry.reasons = shields.reasons(forApplication: token, categories: []).map(reason)
                items[token.opaqueValue] = entry
            }
        }
        // Blocked applications, by token or by bundle identifier (a desktop id).
        for store in stores {
            for app in store.application.blockedApplications ?? [] {
                let blocked = ShieldListing.Reason(app: store.owner, store: store.name, rule: .blocked)
                let key: String
                if let token = app.token?.opaqueValue {
                    key = token
                    if items[key] == nil { items[key] = item(for: token) }
                } else if let id = app.bundleIdentifier {
                    if let candidate = byPublicID[id] {
                        key = candidate.token
                        if items[key] == nil { items[key] = item(for: key) }
                    } else {
                        key = "id:\(id)"
                        if items[key] == nil {
                            let named = directory.application(publicID: id)
                            items[key] = ShieldListing.Item(
                                kind: .application, id: id, name: named?.displayName ?? app.localizedDisplayName ?? id,
                                token: nil, reasons: [])
                        }
                    }
                } else {
                    continue
                }
                items[key]?.reasons.append(blocked)
            }
        }
        return sorted(items.values)
    }

    // MARK: Categories

    func categories() -> [ShieldListing.Item] {
        var items: [String: ShieldListing.Item] = [:]
        for store in stores {
            for policy in [
                store.shield.applicationCategories.map(Policy.init), store.shield.webDomainCategories.map(Policy.init),
            ] {
                switch policy {
                case .specific(let categories)?:
                    for category in categories {
                        let token = category.opaqueValue
                        if items[token] == nil {
                            items[token] =
                                if let id = categoryIDs[token] {
                                    ShieldListing.Item(
                                        kind: .category, id: id, name: categoryName(id), token: token, reasons: [])
                                } else {
                                    unknownItem(.category, token: token)
                                }
                        }
                        items[token]?.reasons.append(
                            ShieldListing.Reason(app: store.owner, store: store.name, rule: .listed))
                    }
                case .all?:
                    let id = ShieldListing.allCategoriesID
                    if items[id] == nil {
                        items[id] = ShieldListing.Item(
                            kind: .category, id: id, name: "All categories", token: nil, reasons: [])
                    }
                    items[id]?.reasons.append(
                        ShieldListing.Reason(app: store.owner, store: store.name, rule: .allCategories))
                case .other?, nil:
                    break
                }
            }
        }
        return sorted(items.values)
    }

    /// A category policy without its member type.
    enum Policy {
        case specific(Set<ActivityCategoryToken>)
        case all
        case other

        init<Child>(_ policy: ShieldSettings.ActivityCategoryPolicy<Child>) {
            switch policy {
            case .specific(let categories, _): self = .specific(categories)
            case .all: self = .all
            case .none: self = .other
            }
        }
    }

    // MARK: Web domains

    func webDomains() -> [ShieldListing.Item] {
        var items: [String: ShieldListing.Item] = [:]
        let domains = labels[.webDomain] ?? [:]
        // Every domain an app was given a token for: listed, or covered by `.all(except:)`.
        for (token, domain) in domains {
            let reasons = shields.reasons(forWebDomain: WebDomainToken(opaqueValue: token), categories: [])
            guard !reasons.isEmpty else { continue }
            items[token] = ShieldListing.Item(
                kind: .webDomain, id: domain, name: domain, token: token, reasons: reasons.map(reason))
        }
        for store in stores {
            for token in store.shield.webDomains ?? [] where items[token.opaqueValue] == nil {
                var item = unknownItem(.webDomain, token: token.opaqueValue)
                item.reasons = shields.reasons(forWebDomain: token, categories: []).map(reason)
                items[token.opaqueValue] = item
            }
        }
        return sorted(items.values)
    }

    // MARK: Names and order

    func categoryName(_ id: String) -> String {
        directory.categories.displayName(of: id, language: language)
    }

    func reason(_ shieldReason: ShieldReason) -> ShieldListing.Reason {
        switch shieldReason.rule {
        case .listed:
            return ShieldListing.Reason(app: shieldReason.owner, store: shieldReason.store, rule: .listed)
        case .allCategories:
            return ShieldListing.Reason(app: shieldReason.owner, store: shieldReason.store, rule: .allCategories)
        case .category(let token):
            let id = categoryIDs[token.opaqueValue]
            return ShieldListing.Reason(
                app: shieldReason.owner, store: shieldReason.store, rule: .category,
                category: id ?? "token:\(token.opaqueValue)",
                categoryName: id.map(categoryName) ?? ShieldListing.unknownName(token: token.opaqueValue))
        }
    }

    func unknownItem(_ kind: ShieldListing.Kind, token: String) -> ShieldListing.Item {
        ShieldListing.Item(
            kind: kind, id: "token:\(token)", name: ShieldListing.unknownName(token: token), token: token,
            isKnown: false, reasons: [])
    }

    /// Known items by name, then unknown ones; "all categories" first; reasons in a stable order, once each.
    func sorted(_ items: some Sequence<ShieldListing.Item>) -> [ShieldListing.Item] {
        items.map { item in
            var copy = item
            copy.reasons = Array(Set(item.reasons)).sorted()
            return copy
        }
        .sorted { a, b in
            let rank = { (item: ShieldListing.Item) in
                item.id == ShieldListing.allCategoriesID ? 0 : item.isKnown ? 1 : 2
            }
            if rank(a) != rank(b) { return rank(a) < rank(b) }
            let order = a.name.localizedCaseInsensitiveCompare(b.name)
            if order != .orderedSame { return order == .orderedAscending }
            return a.id < b.id
        }
    }
}
