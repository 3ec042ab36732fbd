@_spi(Screenward) import ManagedSettings
import ScreenwardBasics

/// Why one application is shielded now, and whose shield it is: the app whose store
/// put it up answers for its look (data source) and its buttons (action delegate),
/// as on Apple platforms the shield extensions of the app that set the shield do.
public struct ShieldDecision: Hashable, Sendable {
    /// A category the application is shielded through.
    public struct Category: Hashable, Sendable {
        /// The category's id (`Game`, `Social`).
        public var id: String
        public var token: ActivityCategoryToken
        /// Its display name in the person's language.
        public var name: String

        public init(id: String, token: ActivityCategoryToken, name: String) {
            self.id = id
            self.token = token
            self.name = name
        }
    }

    /// The device-wide token of the shielded application.
    public var application: ApplicationToken
    public var identity: AppIdentity
    /// The bundle identifier of the app whose store is responsible.
    public var owner: String
    public var store: String
    /// Nil when the application is listed by itself (`shield.applications`).
    public var category: Category?
    /// Every store and rule that shields the application (`screenward shields`).
    public var reasons: [ShieldReason]

    /// What the shield's texts name.
    public var subject: ShieldSubject { ShieldSubject(name: identity.displayName, categoryName: category?.name) }
}

/// Decides, for an application seen on screen, whether it is shielded and by whom.
public struct ShieldDecider: Sendable {
    private let minter: TokenMinter
    private let categories: CategoryTable
    /// Read at each decision: a managed session's language can change while the agent runs.
    private let language: SessionLanguage

    public init(minter: TokenMinter, categories: CategoryTable, language: SessionLanguage) {
        self.minter = minter
        self.categories = categories
        self.language = language
    }

    public init(minter: TokenMinter, categories: CategoryTable, language: String) {
        self.init(minter: minter, categories: categories, language: SessionLanguage(language))
    }

    /// Nil when no store shields `identity`.
    ///
    /// Several stores may shield the same application. The one answering for the
    /// shield is chosen so that the choice never flickers: a store listing the
    /// application by itself before one shielding its category (the more specific
    /// intent), then by owner and store name.
    public func decide(_ identity: AppIdentity, in shields: EffectiveShields) -> ShieldDecision? {
        let token = minter.applicationToken(for: identity)
        let desktopID: String? = if case .desktopEntry(let id) = identity.key { id } else { nil }
        let categoryID = categories.category(desktopID: desktopID, entryCategories: identity.categories)
        let categoryToken = minter.categoryToken(forCategory: categoryID)
        let reasons = shields.reasons(forApplication: token, categories: [categoryToken])
        guard let chosen = reasons.min(by: Self.precedes) else { return nil }
        let category: ShieldDecision.Category? =
            switch chosen.rule {
            case .listed: nil
            case .category, .allCategories:
                ShieldDecision.Category(
                    id: categoryID, token: categoryToken,
                    name: categories.displayName(of: categoryID, language: language.current))
            }
        return ShieldDecision(
            application: token, identity: identity, owner: chosen.owner, store: chosen.store, category: category,
            reasons: reasons)
    }

    /// The stores blocking `identity` (it may not be used at all), in a stable order;
    /// empty when none does. Blocking comes before shielding.
    public func blockingStores(of identity: AppIdentity, in shields: EffectiveShields) -> [BlockingStore] {
        guard shields.blocksAnything else { return [] }
        return shields.blockingStores(
            forApplication: minter.applicationToken(for: identity), publicID: identity.publicID
        )
        .sorted { ($0.owner, $0.store) < ($1.owner, $1.store) }
    }

    private static func precedes(_ a: ShieldReason, _ b: ShieldReason) -> Bool {
        func rank(_ rule: ShieldReason.Rule) -> Int {
            switch rule {
            case .listed: 0
            case .category: 1
            case .allCategories: 2
            }
        }
        return (rank(a.rule), a.owner, a.store) < (rank(b.rule), b.owner, b.store)
    }
}
