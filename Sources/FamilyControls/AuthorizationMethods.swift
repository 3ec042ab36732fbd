import ManagedSettings
import ScreenwardIPC

/// The requests `AuthorizationCenter` sends to the state owner.
@_spi(Screenward) public enum AuthorizationMethods {
    public static let request = ServiceMethod<FamilyControlsMember, AuthorizationStatus>("authorization.request")
    public static let status = ServiceMethod<Empty, AuthorizationStatus>("authorization.status")
    public static let revoke = ServiceMethod<Empty, Empty>("authorization.revoke")
    /// The activity picker's back end: tokens, for this client, for items named by id.
    public static let issueSelection = ServiceMethod<SelectionRequest, FamilyActivitySelection>("selection.issue")
}

/// Items to turn into a client's tokens: application ids as `screenward usage --json`
/// shows them (`firefox.desktop`, `wmclass:Foo`), category ids (`Game`, `Social`), domains.
@_spi(Screenward) public struct SelectionRequest: Codable, Hashable, Sendable {
    public var applications: [String]
    public var categories: [String]
    public var webDomains: [String]
    public var includeEntireCategory: Bool

    public init(applications: [String] = [], categories: [String] = [], webDomains: [String] = [], includeEntireCategory: Bool = false) {
        self.applications = applications
        self.categories = categories
        self.webDomains = webDomains
        self.includeEntireCategory = includeEntireCategory
    }
}
