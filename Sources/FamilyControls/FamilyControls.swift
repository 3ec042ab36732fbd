// FamilyControls: authorization and the selection of apps, categories and web domains.
// The token types live in ManagedSettings (as in Apple's SDK) and are re-exported here,
// so `import FamilyControls` alone is enough to hold an `ApplicationToken`.
@_exported import ManagedSettings

/// Who an authorization is for.
public enum FamilyControlsMember: String, Hashable, Codable, Sendable {
    /// A person managing their own use (any number of apps may hold it).
    case individual
    /// A child's account managed by a guardian.
    case child
}

/// Whether this app may use the Screen Time API.
public enum AuthorizationStatus: String, Hashable, Codable, Sendable {
    case notDetermined
    case denied
    case approved
}

/// Errors of authorization and of the API's use (Apple's cases, with messages
/// that say what to do).
public enum FamilyControlsError: Error, Hashable, Codable, Sendable, CustomStringConvertible {
    /// The kind of account does not allow this authorization.
    case invalidAccountType
    /// Another app already holds the guardian authorization for this child.
    case authorizationConflict
    /// The person declined.
    case authorizationCanceled
    /// The guardian service could not be reached.
    case networkError
    /// The person cannot authenticate (no password or method configured).
    case authenticationMethodUnavailable
    /// A value given to the API is out of range (for example more than 50 tokens).
    case invalidArgument(String)
    /// The feature is not available on this system yet or here.
    case unavailable(String)
    /// A policy on this computer forbids it.
    case restricted
    /// In an account a guardian manages, the change restricts less than before: the app asks
    /// first (`AuthorizationCenter.requestGuardianApproval(reason:)`). Screenward's own case.
    case guardianApprovalRequired(String)

    public var description: String {
        switch self {
        case .invalidAccountType: "this account cannot grant that authorization"
        case .authorizationConflict: "another app already manages this account"
        case .authorizationCanceled: "the authorization was declined"
        case .networkError: "the guardian service could not be reached"
        case .authenticationMethodUnavailable: "no way to authenticate the person is set up"
        case .invalidArgument(let why): "invalid argument: \(why)"
        case .unavailable(let why): "unavailable: \(why)"
        case .restricted: "a policy on this computer forbids it"
        case .guardianApprovalRequired(let why): "a guardian's approval is needed: \(why)"
        }
    }
}
