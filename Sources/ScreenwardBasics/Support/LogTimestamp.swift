import Foundation

/// A log line's time, in UTC to the millisecond: `2026-11-26T14:57:54.756`.
///
/// Written out by arithmetic (days to a civil date, as in Howard Hinnant's
/// `civil_from_days`) rather than with `Date.ISO8601FormatStyle`: the format style
/// builds a calendar in the current time zone and brings in the regular-expression
/// runtime, and for the agent, which logs from its first moment, that cost about
/// 1 MiB of resident code and ICU's zone tables for a fixed format.
public enum LogTimestamp {
    public static func string(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let (days, dayMilliseconds) = floorDivision(milliseconds, 86_400_000)
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        let seconds = dayMilliseconds / 1000
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(seconds / 3600, 2)):"
            + "\(pad(seconds / 60 % 60, 2)):\(pad(seconds % 60, 2)).\(pad(dayMilliseconds % 1000, 3))"
    }

    /// The proleptic Gregorian date `days` after 1970-01-01.
    static func civilDate(daysSinceEpoch days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468  // from 0000-03-01, so that a leap day ends its year
        let (era, dayOfEra) = floorDivision(shifted, 146_097)
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let remainder = ((value % divisor) + divisor) % divisor
        return ((value - remainder) / divisor, remainder)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
