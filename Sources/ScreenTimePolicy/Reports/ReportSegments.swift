import Foundation

/// The calendar's hours, days or weeks that meet a range, clipped to it.
///
/// Each boundary is where the calendar says the unit starts, in its time zone, so a
/// day is 23 or 25 hours long across a change of daylight saving time, and the hours
/// of that day number 23 or 25. Weeks start on Monday (ISO 8601).
public enum ReportSegments {
    /// The most segments one report may have (a year of hours is 8,784).
    public static let maximumCount = 10_000

    public struct TooMany: Error, CustomStringConvertible {
        public var count: Int
        public var description: String {
            "the range has more than \(ReportSegments.maximumCount) segments; choose a shorter range or longer segments"
        }
    }

    public static func boundaries(
        of segmentation: ActivityReport.Segmentation, from start: Date, to end: Date, calendar base: Calendar
    ) throws -> [DateInterval] {
        guard start < end else { return [] }
        var calendar = base
        calendar.firstWeekday = 2
        calendar.minimumDaysInFirstWeek = 4
        let unit: Calendar.Component =
            switch segmentation {
            case .hourly: .hour
            case .daily: .day
            case .weekly: .weekOfYear
            }
        var segments: [DateInterval] = []
        var cursor = start
        while cursor < end {
            guard let whole = calendar.dateInterval(of: unit, for: cursor), whole.end > cursor else {
                // A calendar that cannot say where the unit ends: the rest is one segment.
                segments.append(DateInterval(start: cursor, end: end))
                break
            }
            let segmentEnd = min(whole.end, end)
            segments.append(DateInterval(start: cursor, end: segmentEnd))
            guard segments.count <= maximumCount else { throw TooMany(count: segments.count) }
            cursor = segmentEnd
        }
        return segments
    }
}
