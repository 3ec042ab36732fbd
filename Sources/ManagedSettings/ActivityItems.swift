/// An application, as the API hands it to code allowed to see it (a shield
/// configuration, a report): its token always, its identity only where the system
/// reveals it. On Linux the bundle identifier is the desktop id (`firefox.desktop`)
/// or `wmclass:<class>`.
public struct Application: Hashable, Codable, Sendable {
    public var token: ApplicationToken?
    public var bundleIdentifier: String?
    public var localizedDisplayName: String?

    public init(bundleIdentifier: String) {
        self.bundleIdentifier = bundleIdentifier
    }

    public init(token: ApplicationToken) {
        self.token = token
    }

    @_spi(Screenward) public init(token: ApplicationToken?, bundleIdentifier: String?, localizedDisplayName: String?) {
        self.token = token
        self.bundleIdentifier = bundleIdentifier
        self.localizedDisplayName = localizedDisplayName
    }
}

/// A category of applications and web domains (Games, Education, Social…).
public struct ActivityCategory: Hashable, Codable, Sendable {
    public var token: ActivityCategoryToken?
    public var localizedDisplayName: String?

    public init(token: ActivityCategoryToken) {
        self.token = token
    }

    @_spi(Screenward) public init(token: ActivityCategoryToken?, localizedDisplayName: String?) {
        self.token = token
        self.localizedDisplayName = localizedDisplayName
    }
}

/// A web domain.
public struct WebDomain: Hashable, Codable, Sendable {
    public var token: WebDomainToken?
    public var domain: String?

    public init(domain: String) {
        self.domain = domain
    }

    public init(token: WebDomainToken) {
        self.token = token
    }
}
