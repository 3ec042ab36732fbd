import Foundation
import ScreenwardIPC

/// A point in time as a person types it on the command line: `now`, `today`
/// (local midnight), `yesterday` (the midnight before), an ISO-8601 date
/// (`2026-11-21`, local midnight) or date-time (`2026-11-21T14:30:00+01:00`,
/// `2026-11-21T14:30`, local time when no offset is given).
public struct TimeArgument: Sendable, Equatable {
    public var text: String

    public init(_ text: String) { self.text = text }

    public struct ParseError: PhrasedError {
        public var text: String
        public var phrase: Phrase {
            // swift-format-ignore
            Phrase("cannot read \"{text}\" as a time: use now, today, yesterday, 2026-11-21, 2026-11-21T14:30 or 2026-11-21T14:30:00Z", context: "time", ["text": text])
        }
    }

    public func resolve(now: Date, calendar: Calendar = .current) throws -> Date {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch trimmed.lowercased() {
        case "now": return now
        case "today": return calendar.startOfDay(for: now)
        case "yesterday":
            let today = calendar.startOfDay(for: now)
            return calendar.date(byAdding: .day, value: -1, to: today) ?? today.addingTimeInterval(-86_400)
        default: break
        }
        if let date = Self.parseISO8601(trimmed, calendar: calendar) { return date }
        throw ParseError(text: text)
    }

    static func parseISO8601(_ text: String, calendar: Calendar) -> Date? {
        // With an explicit offset or Z.
        for options: ISO8601DateFormatter.Options in [
            [.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime],
        ] {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = options
            if let date = formatter.date(from: text) { return date }
        }
        // Local date or date-time.
        for format in [
            "yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd HH:mm", "yyyy-MM-dd",
        ] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.calendar = calendar
            formatter.timeZone = calendar.timeZone
            formatter.isLenient = false
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}
