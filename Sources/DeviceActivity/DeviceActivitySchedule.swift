import Foundation

/// When an activity's interval runs: from `intervalStart` to `intervalEnd`, date
/// components matched in the user's calendar and time zone (for example
/// `hour: 17, minute: 0` to `hour: 20, minute: 0`), once or every time they match.
public struct DeviceActivitySchedule: Hashable, Codable, Sendable {
    public var intervalStart: DateComponents
    public var intervalEnd: DateComponents
    public var repeats: Bool
    /// How long before the interval starts and ends (and before events reach their
    /// thresholds) the warning callbacks come; nil for none.
    public var warningTime: DateComponents?

    public init(
        intervalStart: DateComponents, intervalEnd: DateComponents, repeats: Bool, warningTime: DateComponents? = nil
    ) {
        self.intervalStart = intervalStart
        self.intervalEnd = intervalEnd
        self.repeats = repeats
        self.warningTime = warningTime
    }

    /// The interval running now, else the next one to start; nil when the
    /// components never match.
    public var nextInterval: DateInterval? {
        interval(containingOrAfter: Date(), calendar: .current)
    }

    /// The interval that contains `date`, else the first one that starts after it.
    ///
    /// Matching follows the calendar's rules across daylight-saving changes: a
    /// start in the skipped hour moves to the first instant after it, and a start
    /// in the repeated hour takes its first occurrence.
    public func interval(containingOrAfter date: Date, calendar: Calendar) -> DateInterval? {
        guard Self.isPlausible(intervalStart), Self.isPlausible(intervalEnd) else { return nil }
        if let current = intervalStarting(atOrBefore: date, calendar: calendar), current.end > date {
            return current
        }
        guard let start = Self.nextMatch(intervalStart, after: date, calendar: calendar) else { return nil }
        return interval(startingAt: start, calendar: calendar)
    }

    /// The interval that starts at `start` (a match of `intervalStart`).
    public func interval(startingAt start: Date, calendar: Calendar) -> DateInterval? {
        guard let end = Self.nextMatch(intervalEnd, after: start, calendar: calendar), end > start else { return nil }
        return DateInterval(start: start, end: end)
    }

    /// The latest interval starting at or before `date` (which may have ended).
    public func intervalStarting(atOrBefore date: Date, calendar: Calendar) -> DateInterval? {
        // nextDate(after:) is strict, so ask from just after `date`.
        guard
            let start = calendar.nextDate(
                after: date.addingTimeInterval(0.001), matching: Self.matchable(intervalStart),
                matchingPolicy: .nextTime, repeatedTimePolicy: .first, direction: .backward)
        else { return nil }
        return interval(startingAt: start, calendar: calendar)
    }

    /// The warning offset as a positive duration, or nil.
    public func warningDuration(calendar: Calendar) -> TimeInterval? {
        guard let warningTime, let reference = calendar.date(from: DateComponents(year: 2001, month: 1, day: 1)),
            let shifted = calendar.date(byAdding: warningTime, to: reference)
        else { return nil }
        let seconds = shifted.timeIntervalSince(reference)
        return seconds > 0 ? seconds : nil
    }

    static func nextMatch(_ components: DateComponents, after date: Date, calendar: Calendar) -> Date? {
        calendar.nextDate(
            after: date, matching: matchable(components), matchingPolicy: .nextTime, repeatedTimePolicy: .first,
            direction: .forward)
    }

    /// Whether components can ever name a moment. The calendar's own matching would
    /// quietly turn February 30 into March 1; a schedule should be refused instead.
    public static func isPlausible(_ components: DateComponents) -> Bool {
        func within(_ value: Int?, _ range: ClosedRange<Int>) -> Bool { value.map(range.contains) ?? true }
        guard within(components.month, 1...12), within(components.day, 1...31), within(components.hour, 0...23),
            within(components.minute, 0...59), within(components.second, 0...59), within(components.weekday, 1...7)
        else { return false }
        if let month = components.month, let day = components.day {
            let longest = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
            return day <= longest
        }
        return true
    }

    /// Calendar and time zone inside the components are not matchable fields.
    static func matchable(_ components: DateComponents) -> DateComponents {
        var copy = components
        copy.calendar = nil
        copy.timeZone = nil
        return copy
    }
}
