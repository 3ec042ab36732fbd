import Foundation
import ManagedSettings
import ScreenwardIPC

/// The requests `AuthorizationCenter` sends to the state owner.
@_spi(Screenward) public enum AuthorizationMethods {
    public static let request = ServiceMethod<FamilyControlsMember, AuthorizationStatus>("authorization.request")
    public static let status = ServiceMethod<Empty, AuthorizationStatus>("authorization.status")
    public static let revoke = ServiceMethod<Empty, Empty>("authorization.revoke")
    /// From now on, this connection is told each change of the app's status (`statusChanged`).
    public static let watchStatus = ServiceMethod<Empty, AuthorizationStatus>("authorization.watch")
    public static let statusChanged = PushKind<AuthorizationStatus>("authorization.status-changed")
    /// A guardian's approval for what this connection loosens next (`requestGuardianApproval`).
    public static let guardianApproval = ServiceMethod<GuardianApprovalRequest, GuardianApprovalGrant>(
        "authorization.guardian-approval")
    /// The activity picker's back end: tokens, for this client, for items named by id.
    public static let issueSelection = ServiceMethod<SelectionRequest, FamilyActivitySelection>("selection.issue")
    /// The way back, for the picker to check what is already chosen: this client's own
    /// tokens as the ids they were issued for. Tokens it was never given are left out,
    /// each with the reason, so one stale token does not keep the picker closed.
    public static let describeSelection = ServiceMethod<FamilyActivitySelection, SelectionDescription>(
        "selection.describe")
    /// The activity picker, shown by the state owner on the person's display: this client's
    /// tokens in, its tokens for what was chosen out. The ids chosen stay with the owner.
    public static let presentPicker = ServiceMethod<PickerPresentation, PickerOutcome>("picker.present")
}

/// What `FamilyActivityPicker` asks the owner to show.
@_spi(Screenward) public struct PickerPresentation: Codable, Hashable, Sendable {
    public var selection: FamilyActivitySelection
    public var headerText: String?
    public var footerText: String?

    public init(selection: FamilyActivitySelection, headerText: String? = nil, footerText: String? = nil) {
        self.selection = selection
        self.headerText = headerText
        self.footerText = footerText
    }
}

/// How the picker the owner showed ended.
@_spi(Screenward) public enum PickerOutcome: Codable, Hashable, Sendable {
    /// The client's tokens for what was chosen.
    case chosen(FamilyActivitySelection)
    case cancelled
    /// The owner has no display of the caller's to show it on (a guardian's own copy of a
    /// child's app, run with `screenward app run --user`): the caller shows the picker itself,
    /// with these ids ticked, and asks for its tokens (`selection.issue`).
    case chooseHere(SelectionRequest)
}

/// What a client's selection names (`selection.describe`), and what could not be named.
@_spi(Screenward) public struct SelectionDescription: Codable, Hashable, Sendable {
    public var items: SelectionRequest
    /// One line per token left out: which token, and why.
    public var skipped: [String]

    public init(items: SelectionRequest, skipped: [String] = []) {
        self.items = items
        self.skipped = skipped
    }
}

/// Items to turn into a client's tokens: application ids as `screenward usage --json`
/// shows them (`firefox.desktop`, `wmclass:Foo`), category ids (`Game`, `Social`), domains.
@_spi(Screenward) public struct SelectionRequest: Codable, Hashable, Sendable {
    public var applications: [String]
    public var categories: [String]
    public var webDomains: [String]
    public var includeEntireCategory: Bool

    public init(
        applications: [String] = [], categories: [String] = [], webDomains: [String] = [],
        includeEntireCategory: Bool = false
    ) {
        self.applications = applications
        self.categories = categories
        self.webDomains = webDomains
        self.includeEntireCategory = includeEntireCategory
    }
}

/// Why an app asks a guardian ahead of loosening what it restricts, in its own words.
@_spi(Screenward) public struct GuardianApprovalRequest: Codable, Hashable, Sendable {
    public var reason: String
    public init(reason: String) { self.reason = reason }

    /// The most characters of a reason the dialog shows.
    public static let maximumReasonLength = 200
}

/// Until when the connection's changes need no more approval; nil: no guardian decides
/// here (a person's own account).
@_spi(Screenward) public struct GuardianApprovalGrant: Codable, Hashable, Sendable {
    public var until: Date?
    public init(until: Date?) { self.until = until }
}

/// What the activity picker lists as seen in use when it cannot read the ledger itself (the
/// picker a managed session's agent shows: the daemon keeps the child's ledger).
@_spi(Screenward) public struct PickerSeen: Codable, Hashable, Sendable {
    public struct Application: Codable, Hashable, Sendable {
        public var id: String
        public var name: String
        public init(id: String, name: String) {
            self.id = id
            self.name = name
        }
    }

    public var applications: [Application]
    public var websites: [String]

    public init(applications: [Application] = [], websites: [String] = []) {
        self.applications = applications
        self.websites = websites
    }
}
