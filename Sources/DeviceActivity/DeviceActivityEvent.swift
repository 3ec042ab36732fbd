import Foundation
import ManagedSettings

/// Usage to watch within an activity's interval: the focused time of the listed
/// applications, categories and web domains, summed, reaching `threshold`.
public struct DeviceActivityEvent: Hashable, Codable, Sendable {
    public struct Name: RawRepresentable, Hashable, Codable, Sendable, ExpressibleByStringLiteral {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public init(stringLiteral value: String) { rawValue = value }
    }

    public var applications: Set<ApplicationToken>
    public var categories: Set<ActivityCategoryToken>
    public var webDomains: Set<WebDomainToken>
    public var threshold: DateComponents
    /// Whether usage since the interval's start counts, or only usage after the
    /// event was registered.
    public var includesPastActivity: Bool

    public init(
        applications: Set<ApplicationToken> = [], categories: Set<ActivityCategoryToken> = [],
        webDomains: Set<WebDomainToken> = [], threshold: DateComponents, includesPastActivity: Bool = false
    ) {
        self.applications = applications
        self.categories = categories
        self.webDomains = webDomains
        self.threshold = threshold
        self.includesPastActivity = includesPastActivity
    }

    /// The threshold as a duration (calendar-free: hours, minutes, seconds), or nil
    /// when it is not a positive span of time.
    public var thresholdDuration: TimeInterval? {
        let parts: [(Int?, Double)] = [
            (threshold.day, 86_400), (threshold.hour, 3600), (threshold.minute, 60), (threshold.second, 1),
            (threshold.nanosecond, 1e-9),
        ]
        guard threshold.year == nil, threshold.month == nil, threshold.weekOfYear == nil else { return nil }
        let seconds = parts.reduce(0.0) { $0 + Double($1.0 ?? 0) * $1.1 }
        return seconds > 0 ? seconds : nil
    }
}
