/// What a store shields. Every property is optional: nil means the store says
/// nothing about it (setting nil removes the setting).
public struct ShieldSettings: Hashable, Codable, Sendable {
    /// Apple's limit on individually listed applications and domains.
    public static let maximumTokenCount = 50

    /// Which members of the selected categories are covered, and which are spared.
    public enum ActivityCategoryPolicy<Child>: Hashable, Codable, Sendable {
        /// No category is shielded by this setting.
        case none
        /// Every category, except the listed members.
        case all(except: Set<Token<Child>> = [])
        /// The listed categories, except the listed members.
        case specific(Set<ActivityCategoryToken>, except: Set<Token<Child>> = [])
    }

    public var applications: Set<ApplicationToken>?
    public var applicationCategories: ActivityCategoryPolicy<Application>?
    public var webDomains: Set<WebDomainToken>?
    public var webDomainCategories: ActivityCategoryPolicy<WebDomain>?

    public init(
        applications: Set<ApplicationToken>? = nil, applicationCategories: ActivityCategoryPolicy<Application>? = nil,
        webDomains: Set<WebDomainToken>? = nil, webDomainCategories: ActivityCategoryPolicy<WebDomain>? = nil
    ) {
        self.applications = applications
        self.applicationCategories = applicationCategories
        self.webDomains = webDomains
        self.webDomainCategories = webDomainCategories
    }

    public var isEmpty: Bool {
        applications == nil && applicationCategories == nil && webDomains == nil && webDomainCategories == nil
    }
}

extension ShieldSettings.ActivityCategoryPolicy {
    /// Whether a member with `token`, belonging to `categories`, is covered.
    public func covers(_ token: Token<Child>, inCategories categories: Set<ActivityCategoryToken>) -> Bool {
        switch self {
        case .none: false
        case .all(let except): !except.contains(token)
        case .specific(let selected, let except): !selected.isDisjoint(with: categories) && !except.contains(token)
        }
    }
}

/// Settings about applications themselves.
public struct ApplicationSettings: Hashable, Codable, Sendable {
    /// Applications that may not run at all (they are closed, not shielded).
    public var blockedApplications: Set<Application>?
    /// Whether programs the person did not get from the system may run as applications
    /// (Apple: "prevent installing apps"). Honoured for a managed user (child mode), where
    /// it is on unless a store says `false` and none says `true`: a program the child put
    /// in their home, /tmp or on a stick is shielded until a guardian allows it. A person's
    /// own agent refuses `true`: everything in their account is theirs to run.
    public var denyAppInstallation: Bool?

    public init(blockedApplications: Set<Application>? = nil, denyAppInstallation: Bool? = nil) {
        self.blockedApplications = blockedApplications
        self.denyAppInstallation = denyAppInstallation
    }
}
