import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardIPC

/// An app that holds Screen Time access for a person, as `screenward app list` shows it: since
/// when, as what, and what it restricts now.
public struct AppAccess: Codable, Sendable, Hashable {
    /// Its bundle identifier.
    public var app: String
    /// `individual` or `child`.
    public var member: String
    public var since: Date
    /// Its settings stores that restrict something, by name.
    public var stores: [String]
    /// What those stores shield or block: applications, categories and websites named.
    public var shielded: Int
    /// Its schedules (activities), by name.
    public var activities: [String]

    public init(
        app: String, member: String, since: Date, stores: [String], shielded: Int, activities: [String]
    ) {
        self.app = app
        self.member = member
        self.since = since
        self.stores = stores
        self.shielded = shielded
        self.activities = activities
    }
}

/// The state owner's listing of the apps with access (`AppAccess`) for the person whose
/// owner it is. A person's own account answers it to any of their programs (their ledger is
/// theirs to read anyway); in a managed account only the daemon's own tools read it.
@_spi(Screenward) public enum AccessMethods {
    public static let list = ServiceMethod<Empty, [AppAccess]>("access.list")
}

extension AppAccess {
    /// How many items `contents` shields or blocks (a category counts once, `.all` too).
    @_spi(Screenward) public static func count(_ contents: StoreContents) -> Int {
        func count<Child>(_ policy: ShieldSettings.ActivityCategoryPolicy<Child>?) -> Int {
            switch policy {
            case .specific(let categories, _): categories.count
            case .all: 1
            case .some(.none), nil: 0
            }
        }
        var total = (contents.shield.applications?.count ?? 0) + (contents.shield.webDomains?.count ?? 0)
        total += count(contents.shield.applicationCategories) + count(contents.shield.webDomainCategories)
        total += contents.application.blockedApplications?.count ?? 0
        return total
    }
}
