import Foundation
import ScreenwardBasics
import ScreenwardIPC
import UsageLedger

/// The built-in report's data for a range: `since`/`until` as `screenward usage` takes
/// them (nil: the start of this day or week, and now), cut into hours for a day and
/// days for a week. The owner resolves them in its calendar (the system's time zone
/// for a managed user).
public struct ReportQuery: Sendable, Hashable, Codable {
    public enum Period: String, Sendable, Hashable, Codable { case day, week }

    /// nil: the caller's own (a managed user may ask for no one else's).
    public var user: String?
    public var period: Period
    public var since: String?
    public var until: String?

    public init(user: String?, period: Period, since: String?, until: String?) {
        self.user = user
        self.period = period
        self.since = since
        self.until = until
    }

    public var segmentation: ActivityReport.Segmentation { period == .day ? .hourly : .daily }

    /// The range, resolved at `now` in `calendar`.
    public func range(now: Date, calendar: Calendar) throws -> DateInterval {
        var weekly = calendar
        weekly.firstWeekday = 2
        weekly.minimumDaysInFirstWeek = 4
        let start: Date
        if let since {
            start = try TimeArgument(since).resolve(now: now, calendar: calendar)
        } else {
            let unit: Calendar.Component = period == .day ? .day : .weekOfYear
            start = weekly.dateInterval(of: unit, for: now)?.start ?? calendar.startOfDay(for: now)
        }
        let end = try until.map { try TimeArgument($0).resolve(now: now, calendar: calendar) } ?? now
        guard start < end else {
            throw ReportQueryError(
                Phrase(
                    "the report's range is empty: it starts {start} and ends {end}", context: "report",
                    ["start": "\(start)", "end": "\(end)"]))
        }
        return DateInterval(start: start, end: end)
    }
}

public struct ReportQueryError: PhrasedError {
    public var phrase: Phrase
    public init(_ phrase: Phrase) { self.phrase = phrase }
}

extension Ledger {
    /// The built-in report's data for `query`.
    public func activityReport(
        _ query: ReportQuery, calendar: Calendar, categories: CategoryTable, liveSessionID: Int64?, now: Date
    ) throws -> ActivityReport {
        try activityReport(
            query.segmentation, range: try query.range(now: now, calendar: calendar), calendar: calendar,
            categories: categories,
            liveSessionID: liveSessionID, now: now)
    }
}
