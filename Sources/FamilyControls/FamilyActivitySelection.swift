import ManagedSettings

/// What a person picked in the activity picker: applications, categories and web
/// domains, as opaque tokens. Codable, so an app can keep it.
public struct FamilyActivitySelection: Hashable, Codable, Sendable {
    /// Whether picking a category also picks each of its members individually
    /// (so that exceptions can be made per member).
    public var includeEntireCategory: Bool
    public var applicationTokens: Set<ApplicationToken>
    public var categoryTokens: Set<ActivityCategoryToken>
    public var webDomainTokens: Set<WebDomainToken>

    public init(includeEntireCategory: Bool = false) {
        self.includeEntireCategory = includeEntireCategory
        applicationTokens = []
        categoryTokens = []
        webDomainTokens = []
    }

    public init(
        includeEntireCategory: Bool = false, applicationTokens: Set<ApplicationToken>,
        categoryTokens: Set<ActivityCategoryToken> = [], webDomainTokens: Set<WebDomainToken> = []
    ) {
        self.includeEntireCategory = includeEntireCategory
        self.applicationTokens = applicationTokens
        self.categoryTokens = categoryTokens
        self.webDomainTokens = webDomainTokens
    }

    /// The picked applications, as values shielding code can be given.
    public var applications: Set<Application> { Set(applicationTokens.map(Application.init(token:))) }
    public var categories: Set<ActivityCategory> { Set(categoryTokens.map(ActivityCategory.init(token:))) }
    public var webDomains: Set<WebDomain> { Set(webDomainTokens.map(WebDomain.init(token:))) }
}
