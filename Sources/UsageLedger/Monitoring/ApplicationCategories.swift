@_spi(Screenward) import ManagedSettings
import ScreenwardBasics

/// What is known of an application when its categories are needed: live from the
/// accountant (an `AppIdentity`), or read back from the ledger (public id and the
/// desktop entry's categories as stored).
public struct ApplicationFacts: Sendable, Hashable {
    public var token: ApplicationToken
    /// The desktop entry's id, when a desktop entry matched the application.
    public var desktopID: String?
    /// The desktop entry's freedesktop categories (`Game`, `Office`, …).
    public var entryCategories: [String]

    public init(token: ApplicationToken, desktopID: String?, entryCategories: [String]) {
        self.token = token
        self.desktopID = desktopID
        self.entryCategories = entryCategories
    }

    public init(token: ApplicationToken, identity: AppIdentity) {
        let desktopID: String?
        if case .desktopEntry(let id) = identity.key { desktopID = id } else { desktopID = nil }
        self.init(token: token, desktopID: desktopID, entryCategories: identity.categories)
    }

    /// From the ledger's `application` row: `publicID` is the desktop id, or
    /// `wmclass:…` / `exe:…` when no entry matched (see `AppIdentity.publicID`), and
    /// `categories` the entry's categories joined by `;`.
    public init(token: ApplicationToken, publicID: String, storedCategories: String) {
        let isDesktopID = !publicID.hasPrefix("wmclass:") && !publicID.hasPrefix("exe:")
        self.init(
            token: token, desktopID: isDesktopID ? publicID : nil,
            entryCategories: storedCategories.split(separator: ";").map(String.init))
    }
}

/// Which activity categories an application belongs to, as category tokens: the
/// agent asks the category table and the token minter; tests map tokens directly.
public struct ApplicationCategories: Sendable {
    private let resolve: @Sendable (ApplicationFacts) -> [ActivityCategoryToken]

    public init(_ resolve: @escaping @Sendable (ApplicationFacts) -> [ActivityCategoryToken]) {
        self.resolve = resolve
    }

    /// The agent's: the table decides the category (by desktop id, then entry
    /// categories), the minter turns it into the token clients hold.
    public init(table: CategoryTable, minter: TokenMinter) {
        self.init { facts in
            [
                minter.categoryToken(
                    forCategory: table.category(desktopID: facts.desktopID, entryCategories: facts.entryCategories))
            ]
        }
    }

    /// No application belongs to any category.
    public static let none = ApplicationCategories { _ in [] }

    public func tokens(of application: ApplicationFacts) -> [ActivityCategoryToken] {
        resolve(application)
    }
}

/// The device-wide token of a website (its registrable domain), as events and stores hold
/// them: the agent's mints them; `none` tracks no website (tests about applications).
public struct WebsiteTokens: Sendable {
    private let mint: (@Sendable (String) -> WebDomainToken)?
    private let resolveCategories: @Sendable (String) -> [ActivityCategoryToken]

    /// The agent's: the minter's tokens, and the categories the table gives websites.
    public init(minter: TokenMinter, table: CategoryTable) {
        mint = { minter.webDomainToken(forDomain: $0) }
        resolveCategories = { domain in
            table.category(ofWebsite: domain).map { [minter.categoryToken(forCategory: $0)] } ?? []
        }
    }

    public init(
        _ mint: @escaping @Sendable (String) -> WebDomainToken,
        categories: @escaping @Sendable (String) -> [ActivityCategoryToken] = { _ in [] }
    ) {
        self.mint = mint
        resolveCategories = categories
    }

    private init() {
        mint = nil
        resolveCategories = { _ in [] }
    }
    public static let none = WebsiteTokens()

    public func token(of domain: String) -> WebDomainToken? { mint?(domain) }
    public func categories(of domain: String) -> [ActivityCategoryToken] { resolveCategories(domain) }
}
