import AppExtensions
import Foundation
import ScreenTimePolicy
import ScreenwardIPC
import UsageLedger

/// A managed user as guardians see them.
public struct ManagedUser: Sendable, Hashable, Codable {
    public var name: String
    public var uid: UInt32
    public var since: Date
    /// The guardian who added them.
    public var addedBy: String

    public init(name: String, uid: UInt32, since: Date, addedBy: String) {
        self.name = name
        self.uid = uid
        self.since = since
        self.addedBy = addedBy
    }
}

/// Who the daemon takes the caller for (`screenward` asks before anything else).
public struct CallerIdentity: Sendable, Hashable, Codable {
    public var user: String
    public var uid: UInt32
    public var role: Role

    public init(user: String, uid: UInt32, role: Role) {
        self.user = user
        self.uid = uid
        self.role = role
    }
}

public struct UserName: Sendable, Hashable, Codable {
    public var user: String
    public init(_ user: String) { self.user = user }
}

/// A managed user's usage over a range, as `screenward usage` types it (`today`, an ISO
/// date…): the daemon resolves it in the system's time zone, not the caller's `TZ`.
public struct UsageQuery: Sendable, Hashable, Codable {
    /// nil: the caller's own (a managed user may ask for no one else's).
    public var user: String?
    public var since: String
    public var until: String

    public init(user: String?, since: String, until: String) {
        self.user = user
        self.since = since
        self.until = until
    }
}

/// What is shielded for a managed user, with names in `language` (en, ko, vi).
public struct ShieldQuery: Sendable, Hashable, Codable {
    /// nil: the caller's own.
    public var user: String?
    public var language: String

    public init(user: String?, language: String) {
        self.user = user
        self.language = language
    }
}

public struct AppsQuery: Sendable, Hashable, Codable {
    /// nil: the caller's own.
    public var user: String?
    public init(user: String?) { self.user = user }
}

public struct AppRevocation: Sendable, Hashable, Codable {
    public var user: String
    /// The app's bundle identifier.
    public var app: String
    public init(user: String, app: String) {
        self.user = user
        self.app = app
    }
}

/// A guardian reads, or sets, whether a managed user's console logins are allowed.
public struct ConsoleAccess: Sendable, Hashable, Codable {
    public var user: String
    /// nil: read it only.
    public var allowed: Bool?

    public init(user: String, allowed: Bool?) {
        self.user = user
        self.allowed = allowed
    }
}

/// The system daemon's own requests, beside the Screen Time API's. Each is authorized
/// by the caller's peer credentials, not by anything in the request.
public enum ChildMethods {
    public static let whoAmI = ServiceMethod<Empty, CallerIdentity>("daemon.whoami")
    /// Guardians only.
    public static let add = ServiceMethod<UserName, ManagedUser>("child.add")
    public static let remove = ServiceMethod<UserName, Empty>("child.remove")
    public static let list = ServiceMethod<Empty, [ManagedUser]>("child.list")
    public static let events = ServiceMethod<UserName, [ChildEvent]>("child.events")
    /// Whether the user's console logins are allowed, after the change asked (if any).
    public static let console = ServiceMethod<ConsoleAccess, Bool>("child.console")
    /// A managed user's own, or any managed user's for a guardian.
    public static let usage = ServiceMethod<UsageQuery, UsageReport>("child.usage")
    /// The built-in report's data: a managed user's own, or any managed user's for a guardian.
    public static let report = ServiceMethod<ReportQuery, ActivityReport>("child.report")
    public static let shields = ServiceMethod<ShieldQuery, ShieldListing>("child.shields")
    /// The apps' extensions the daemon starts for a managed user, and their runs.
    public static let extensions = ServiceMethod<ExtensionsQuery, ExtensionsListing>("child.extensions")
    /// The apps holding Screen Time access: a managed user's own, or any managed user's for a guardian.
    public static let apps = ServiceMethod<AppsQuery, [AppAccess]>("child.apps")
    /// Guardians only: take an app's access away from a managed user.
    public static let revokeApp = ServiceMethod<AppRevocation, Empty>("child.revoke-app")
    /// Guardians only: lock a managed user's sessions now (through logind); the reply
    /// says how many were locked.
    public static let lock = ServiceMethod<UserName, Int>("child.lock")
    /// Guardians only, for their own account: a new authenticator secret (replacing any
    /// earlier one), for approving at a child's desk with one-time codes. Shown once.
    public static let enrollGuardian = ServiceMethod<Empty, GuardianEnrollment>("guardian.enroll")
    /// Guardians only, for their own account: forget their authenticator secret; the
    /// reply says whether there was one.
    public static let unenrollGuardian = ServiceMethod<Empty, Bool>("guardian.unenroll")
    /// Managed users only, from their session's tray (the one Screenward program started with
    /// the session's own environment): the language their session speaks. The daemon's rules
    /// then notify them in it, and its agents shield in it.
    public static let sessionLanguage = ServiceMethod<SpokenLanguage, Empty>("session.language")
}
