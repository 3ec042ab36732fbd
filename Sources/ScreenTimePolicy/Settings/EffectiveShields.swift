@_spi(Screenward) import ManagedSettings

/// The settings of one named store of one client (an app and its extensions).
public struct StoreSettings: Hashable, Codable, Sendable {
    /// The client's bundle identifier (for example `org.example.worklog`).
    public var owner: String
    /// The store's name; the unnamed store is "default".
    public var name: String
    public var shield: ShieldSettings
    public var application: ApplicationSettings
    public var webContent: WebContentSettings

    public init(
        owner: String, name: String, shield: ShieldSettings = .init(), application: ApplicationSettings = .init(),
        webContent: WebContentSettings = .init()
    ) {
        self.owner = owner
        self.name = name
        self.shield = shield
        self.application = application
        self.webContent = webContent
    }

    enum CodingKeys: String, CodingKey { case owner, name, shield, application, webContent }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        owner = try container.decode(String.self, forKey: .owner)
        name = try container.decode(String.self, forKey: .name)
        shield = try container.decode(ShieldSettings.self, forKey: .shield)
        application = try container.decode(ApplicationSettings.self, forKey: .application)
        webContent = try container.decodeIfPresent(WebContentSettings.self, forKey: .webContent) ?? WebContentSettings()
    }
}

/// Why something is shielded: which store of which client, by which setting.
public struct ShieldReason: Hashable, Codable, Sendable {
    public enum Rule: Hashable, Codable, Sendable {
        /// Listed in `shield.applications` or `shield.webDomains`.
        case listed
        /// Covered by `.all(except:)`.
        case allCategories
        /// Covered by `.specific(…)` through this category.
        case category(ActivityCategoryToken)
    }

    public var owner: String
    public var store: String
    public var rule: Rule
}

/// A store of one client that blocks an application.
public struct BlockingStore: Hashable, Codable, Sendable, CustomStringConvertible {
    public var owner: String
    public var store: String

    public init(owner: String, store: String) {
        self.owner = owner
        self.store = store
    }

    public var description: String { "\(owner)/\(store)" }
}

/// The effective shield state: the union of every store of every client, so the
/// most restrictive setting wins. An exception (`except:`) only narrows the store
/// it is written in; it never lifts another store's shield.
public struct EffectiveShields: Sendable {
    public let stores: [StoreSettings]

    public init(stores: [StoreSettings]) {
        self.stores = stores
    }

    /// Every reason `application` (member of `categories`) is shielded; empty when it is not.
    public func reasons(forApplication application: ApplicationToken, categories: Set<ActivityCategoryToken>)
        -> [ShieldReason]
    {
        reasons(for: application, in: categories, listed: \.applications, policy: \.applicationCategories)
    }

    /// Every reason `domain` (member of `categories`) is shielded.
    public func reasons(forWebDomain domain: WebDomainToken, categories: Set<ActivityCategoryToken>) -> [ShieldReason] {
        reasons(for: domain, in: categories, listed: \.webDomains, policy: \.webDomainCategories)
    }

    /// Applications and web domains are shielded by the same two kinds of setting:
    /// a list of tokens and a category policy.
    private func reasons<Child>(
        for token: Token<Child>, in categories: Set<ActivityCategoryToken>,
        listed: KeyPath<ShieldSettings, Set<Token<Child>>?>,
        policy: KeyPath<ShieldSettings, ShieldSettings.ActivityCategoryPolicy<Child>?>
    ) -> [ShieldReason] {
        stores.flatMap { store -> [ShieldReason] in
            var reasons: [ShieldReason] = []
            if store.shield[keyPath: listed]?.contains(token) == true {
                reasons.append(ShieldReason(owner: store.owner, store: store.name, rule: .listed))
            }
            if let policy = store.shield[keyPath: policy], policy.covers(token, inCategories: categories) {
                reasons.append(ShieldReason(owner: store.owner, store: store.name, rule: Self.rule(policy, categories)))
            }
            return reasons
        }
    }

    /// The stores that block `application` (`application.blockedApplications`), by its
    /// device token or by its public id given as the bundle identifier; empty when none does.
    public func blockingStores(forApplication application: ApplicationToken, publicID: String) -> [BlockingStore] {
        stores.compactMap { store in
            let blocked = (store.application.blockedApplications ?? []).contains { app in
                app.token == application || app.bundleIdentifier == publicID
            }
            return blocked ? BlockingStore(owner: store.owner, store: store.name) : nil
        }
    }

    /// Whether programs the system did not install are shielded (`application.denyAppInstallation`):
    /// when any store says so; otherwise not when any store says not; otherwise `default`
    /// (on for a managed user).
    public func deniesAppInstallation(default deniedByDefault: Bool) -> Bool {
        let said = stores.compactMap(\.application.denyAppInstallation)
        return said.contains(true) || (!said.contains(false) && deniedByDefault)
    }

    /// Whether any store blocks an application at all (cheap: no token is made).
    public var blocksAnything: Bool {
        stores.contains { !($0.application.blockedApplications ?? []).isEmpty }
    }

    public func isShielded(application: ApplicationToken, categories: Set<ActivityCategoryToken>) -> Bool {
        !reasons(forApplication: application, categories: categories).isEmpty
    }

    /// Categories some store shields (in full or for some members), with the stores responsible.
    public func shieldedCategories() -> [ActivityCategoryToken: [ShieldReason]] {
        var result: [ActivityCategoryToken: [ShieldReason]] = [:]
        for store in stores {
            for policy in [
                store.shield.applicationCategories.map(AnyPolicy.init),
                store.shield.webDomainCategories.map(AnyPolicy.init),
            ] {
                guard case .specific(let categories)? = policy else { continue }
                for category in categories {
                    result[category, default: []].append(
                        ShieldReason(owner: store.owner, store: store.name, rule: .category(category)))
                }
            }
        }
        return result
    }

    private static func rule<Child>(
        _ policy: ShieldSettings.ActivityCategoryPolicy<Child>, _ categories: Set<ActivityCategoryToken>
    ) -> ShieldReason.Rule {
        switch policy {
        case .specific(let selected, _):
            // The first matching category, in a stable order, names the reason.
            selected.intersection(categories).map(\.opaqueValue).sorted().first.map {
                .category(ActivityCategoryToken(opaqueValue: $0))
            }
                ?? .allCategories
        default:
            .allCategories
        }
    }

    /// A category policy without its member type, to list its categories.
    private enum AnyPolicy {
        case specific(Set<ActivityCategoryToken>)
        case other

        init<Child>(_ policy: ShieldSettings.ActivityCategoryPolicy<Child>) {
            if case .specific(let categories, _) = policy { self = .specific(categories) } else { self = .other }
        }
    }
}
