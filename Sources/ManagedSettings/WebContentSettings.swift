/// Settings about web content: which websites the browsers' filter blocks (Apple's
/// `ManagedSettingsStore.webContent`). Websites are named by domain here, as in Apple's
/// API: `WebDomain(domain: "example.com")` blocks it and every host under it.
public struct WebContentSettings: Codable, Hashable, Sendable {
    public enum FilterPolicy: Codable, Hashable, Sendable {
        /// Nothing is filtered.
        case none
        /// The system's filter: on Linux, the hostname lists an administrator puts in
        /// /etc/screenward/web-filter.d (none is shipped), with `domains` added and `except`
        /// spared.
        case auto(Set<WebDomain> = [], except: Set<WebDomain> = [])
        /// Exactly these websites are blocked.
        case specific(Set<WebDomain>)
        /// Every website is blocked but these.
        case all(except: Set<WebDomain> = [])
    }

    /// What the filter blocks; nil (or `.none`) blocks nothing.
    public var blockedByFilter: FilterPolicy?

    public init(blockedByFilter: FilterPolicy? = nil) {
        self.blockedByFilter = blockedByFilter
    }

    /// The most websites one policy may name (each of its lists).
    public static let maximumDomains = 1000
}
