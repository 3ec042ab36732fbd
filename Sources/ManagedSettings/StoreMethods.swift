import ScreenwardIPC

/// The requests a `ManagedSettingsStore` sends to the state owner.
@_spi(Screenward) public enum StoreMethods {
    public static let read = ServiceMethod<StoreReference, StoreContents>("store.read")
    public static let change = ServiceMethod<StoreChange, Empty>("store.change")
    public static let clear = ServiceMethod<StoreReference, Empty>("store.clear")
}

@_spi(Screenward) public struct StoreReference: Codable, Hashable, Sendable {
    public var name: String
    public init(name: String) { self.name = name }
}

@_spi(Screenward) public struct StoreContents: Codable, Hashable, Sendable {
    public var shield: ShieldSettings
    public var application: ApplicationSettings
    public var webContent: WebContentSettings
    public init(
        shield: ShieldSettings, application: ApplicationSettings, webContent: WebContentSettings = WebContentSettings()
    ) {
        self.shield = shield
        self.application = application
        self.webContent = webContent
    }

    enum CodingKeys: String, CodingKey { case shield, application, webContent }

    // Stores kept before web content have none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        shield = try container.decode(ShieldSettings.self, forKey: .shield)
        application = try container.decode(ApplicationSettings.self, forKey: .application)
        webContent = try container.decodeIfPresent(WebContentSettings.self, forKey: .webContent) ?? WebContentSettings()
    }
}

/// Only the settings a caller changed travel, so an app and its monitor writing
/// different settings of one store at once do not undo each other.
@_spi(Screenward) public struct StoreChange: Codable, Hashable, Sendable {
    public enum Setting: Codable, Hashable, Sendable {
        case shieldApplications(Set<ApplicationToken>?)
        case shieldApplicationCategories(ShieldSettings.ActivityCategoryPolicy<Application>?)
        case shieldWebDomains(Set<WebDomainToken>?)
        case shieldWebDomainCategories(ShieldSettings.ActivityCategoryPolicy<WebDomain>?)
        case blockedApplications(Set<Application>?)
        case denyAppInstallation(Bool?)
        case webContentBlockedByFilter(WebContentSettings.FilterPolicy?)
    }

    public var name: String
    public var settings: [Setting]
    public init(name: String, settings: [Setting]) {
        self.name = name
        self.settings = settings
    }

    /// The settings that differ between two states of a store.
    public static func settings(from old: StoreContents, to new: StoreContents) -> [Setting] {
        var changed: [Setting] = []
        if old.shield.applications != new.shield.applications {
            changed.append(.shieldApplications(new.shield.applications))
        }
        if old.shield.applicationCategories != new.shield.applicationCategories {
            changed.append(.shieldApplicationCategories(new.shield.applicationCategories))
        }
        if old.shield.webDomains != new.shield.webDomains { changed.append(.shieldWebDomains(new.shield.webDomains)) }
        if old.shield.webDomainCategories != new.shield.webDomainCategories {
            changed.append(.shieldWebDomainCategories(new.shield.webDomainCategories))
        }
        if old.application.blockedApplications != new.application.blockedApplications {
            changed.append(.blockedApplications(new.application.blockedApplications))
        }
        if old.application.denyAppInstallation != new.application.denyAppInstallation {
            changed.append(.denyAppInstallation(new.application.denyAppInstallation))
        }
        if old.webContent.blockedByFilter != new.webContent.blockedByFilter {
            changed.append(.webContentBlockedByFilter(new.webContent.blockedByFilter))
        }
        return changed
    }
}

extension StoreContents {
    /// The store with `setting` applied.
    @_spi(Screenward) public mutating func apply(_ setting: StoreChange.Setting) {
        switch setting {
        case .shieldApplications(let value): shield.applications = value
        case .shieldApplicationCategories(let value): shield.applicationCategories = value
        case .shieldWebDomains(let value): shield.webDomains = value
        case .shieldWebDomainCategories(let value): shield.webDomainCategories = value
        case .blockedApplications(let value): application.blockedApplications = value
        case .denyAppInstallation(let value): application.denyAppInstallation = value
        case .webContentBlockedByFilter(let value): webContent.blockedByFilter = value
        }
    }

    @_spi(Screenward) public var isEmpty: Bool {
        shield.isEmpty && application.blockedApplications == nil && application.denyAppInstallation == nil
            && webContent.blockedByFilter == nil
    }
}
