import Foundation

extension DeviceActivityCenter {
    /// Apple's errors of `startMonitoring`.
    public enum MonitoringError: Error, Hashable, Sendable, CustomStringConvertible {
        /// The app already monitors 20 activities.
        case excessiveActivities
        /// The schedule's interval is longer than a week.
        case intervalTooLong
        /// The schedule's interval is shorter than 15 minutes.
        case intervalTooShort
        /// The schedule's (or a threshold's) date components never name a moment or a duration.
        case invalidDateComponents
        /// The app has no Family Controls authorization.
        case unauthorized

        public var description: String {
            switch self {
            case .excessiveActivities:
                "an app may monitor at most \(DeviceActivityCenter.maximumActivities) activities; stop one first"
            case .intervalTooLong: "the schedule's interval is longer than a week"
            case .intervalTooShort: "the schedule's interval is shorter than 15 minutes"
            case .invalidDateComponents:
                "the schedule's or an event's date components never name a moment or a duration"
            case .unauthorized:
                """
                this app is not authorised: call AuthorizationCenter.shared.requestAuthorization(for: \
                .individual) first
                """
            }
        }
    }

    public static let maximumActivities = 20
    public static let minimumIntervalLength: TimeInterval = 15 * 60
    public static let maximumIntervalLength: TimeInterval = 7 * 24 * 3600
}

extension DeviceActivitySchedule {
    /// Why this schedule (with these events) cannot be monitored, or nil.
    ///
    /// The interval measured is the one running at `now`, else the next one: its
    /// length is what the limits of 15 minutes and a week apply to.
    public func monitoringProblem(
        events: [DeviceActivityEvent.Name: DeviceActivityEvent] = [:], now: Date, calendar: Calendar
    ) -> DeviceActivityCenter.MonitoringError? {
        guard Self.isPlausible(intervalStart), Self.isPlausible(intervalEnd),
            warningTime == nil || warningDuration(calendar: calendar) != nil,
            events.values.allSatisfy({ $0.thresholdDuration != nil }),
            let interval = interval(containingOrAfter: now, calendar: calendar)
        else { return .invalidDateComponents }
        if interval.duration < DeviceActivityCenter.minimumIntervalLength { return .intervalTooShort }
        if interval.duration > DeviceActivityCenter.maximumIntervalLength { return .intervalTooLong }
        return nil
    }
}
