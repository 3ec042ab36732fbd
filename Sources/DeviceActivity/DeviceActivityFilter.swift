import Foundation
import ManagedSettings

/// Which activity a report covers: a range cut into hours, days or weeks, and the
/// applications, categories and web domains to include (none named: everything).
/// The tokens are the app's own, from the activity picker.
public struct DeviceActivityFilter: Hashable, Codable, Sendable {
    /// The range and the length of its segments. Segments follow the calendar of the
    /// system's time zone (a day across a change of daylight saving time is 23 or 25
    /// hours; weeks start on Monday) and are clipped to the range.
    public enum SegmentInterval: Hashable, Codable, Sendable {
        case hourly(during: DateInterval)
        case daily(during: DateInterval)
        case weekly(during: DateInterval)

        public var interval: DateInterval {
            switch self {
            case .hourly(let interval), .daily(let interval), .weekly(let interval): interval
            }
        }
    }

    /// Whose activity. Screenward reports one person's: the user the request is about
    /// (the caller, or the managed user a guardian names).
    public enum Users: String, Hashable, Codable, Sendable {
        case all, children
    }

    /// Which devices: this computer's activity is the only one Screenward has.
    public struct Devices: Hashable, Codable, Sendable {
        public static let all = Devices()
    }

    public var segmentInterval: SegmentInterval
    public var users: Users
    public var devices: Devices
    public var applications: Set<ApplicationToken>
    public var categories: Set<ActivityCategoryToken>
    public var webDomains: Set<WebDomainToken>

    public init(
        segment: SegmentInterval, users: Users = .all, devices: Devices = .all,
        applications: Set<ApplicationToken> = [],
        categories: Set<ActivityCategoryToken> = [], webDomains: Set<WebDomainToken> = []
    ) {
        segmentInterval = segment
        self.users = users
        self.devices = devices
        self.applications = applications
        self.categories = categories
        self.webDomains = webDomains
    }
}
