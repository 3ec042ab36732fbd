import Foundation
import ScreenwardIPC

/// What people type for rules (`1h30m`, `21:00`, `mon-fri`), read strictly: a value
/// that does not parse is refused with an example, never guessed at.
public enum RuleText {
    /// A value that does not parse, and how to write it (a `Phrase`: the command line shows it
    /// in its reader's language).
    public struct Invalid: PhrasedError, Equatable {
        public var phrase: Phrase
        init(_ phrase: Phrase) { self.phrase = phrase }
    }

    // MARK: Durations

    /// `1h`, `90m`, `1h30m`, `45s`, `2h5m10s`: seconds, at least one second. `what` names the
    /// duration in the error ("daily limit", "pause").
    public static func duration(_ text: String, what: Phrase = Phrase("duration", context: "rule.what")) throws
        -> TimeInterval
    {
        let notADuration = Invalid(
            Phrase(
                "\"{text}\" is not a {what}: write it as 1h, 90m, 1h30m or 45s", context: "rule",
                ["text": String(text.prefix(40)), "what": what]))
        var total = 0
        var number = ""
        var units = ""
        for character in text.trimmingCharacters(in: .whitespaces).lowercased() {
            if character.isASCII, character.isNumber {
                number.append(character)
                continue
            }
            guard "hms".contains(character), !units.contains(character), let value = Int(number), value <= 100_000
            else {
                throw notADuration
            }
            // Units in order, each once: 1h30m, not 30m1h.
            if let last = units.last, "hms".firstIndex(of: last)! >= "hms".firstIndex(of: character)! {
                throw notADuration
            }
            units.append(character)
            total += value * (character == "h" ? 3600 : character == "m" ? 60 : 1)
            number = ""
        }
        guard number.isEmpty, !units.isEmpty else {
            throw notADuration
        }
        guard total > 0 else {
            throw Invalid(Phrase("a {what} of 0 means nothing: give at least 1s", context: "rule", ["what": what]))
        }
        return TimeInterval(total)
    }

    /// The shortest way to write `seconds` back: `1h30m`, `45s`, `2h`.
    public static func duration(_ seconds: TimeInterval) -> String {
        let whole = Int(seconds.rounded())
        var text = ""
        if whole >= 3600 { text += "\(whole / 3600)h" }
        if whole % 3600 >= 60 { text += "\(whole % 3600 / 60)m" }
        if whole % 60 > 0 || whole == 0 { text += "\(whole % 60)s" }
        return text
    }

    // MARK: Weekdays

    /// `mon-fri`, `sat,sun`, `mon,wed-fri`, `every` (or `daily`): weekdays in the
    /// Gregorian calendar's numbering (1 is Sunday).
    public static func weekdays(_ text: String) throws -> Weekdays {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        if trimmed == "every" || trimmed == "daily" || trimmed == "all" { return .every }
        var days: Set<Int> = []
        for part in trimmed.split(separator: ",", omittingEmptySubsequences: false) {
            let ends = part.split(separator: "-", omittingEmptySubsequences: false).map { Weekdays.number(String($0)) }
            switch ends.count {
            case 1:
                guard let day = ends[0] else { throw invalidDays(text) }
                days.insert(day)
            case 2:
                guard let first = ends[0], let last = ends[1] else { throw invalidDays(text) }
                // Monday-based order, so fri-mon wraps over the weekend.
                var day = first
                while true {
                    days.insert(day)
                    if day == last { break }
                    day = day % 7 + 1
                }
            default:
                throw invalidDays(text)
            }
        }
        return Weekdays(days)
    }

    private static func invalidDays(_ text: String) -> Invalid {
        Invalid(
            Phrase(
                "\"{text}\" is not a list of days: write mon-fri, sat,sun, mon,wed-fri or every", context: "rule",
                ["text": String(text.prefix(40))]))
    }

    // MARK: Times of day

    /// `21:00`, `7:30`: an hour and minute of the local day.
    public static func timeOfDay(_ text: String) throws -> TimeOfDay {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1].count == 2, let hour = Int(parts[0]), let minute = Int(parts[1]),
            (0...23).contains(hour), (0...59).contains(minute)
        else {
            throw Invalid(
                Phrase(
                    "\"{text}\" is not a time of day: write 21:00 or 7:30 (24-hour clock)", context: "rule",
                    ["text": String(text.prefix(40))]))
        }
        return TimeOfDay(hour: hour, minute: minute)
    }

    // MARK: Names

    public static let maximumNameLength = 40

    /// A rule's name as people call it: `Games`, `school nights`. Letters, digits,
    /// spaces, `-` and `_`, 1 to 40 characters.
    public static func name(_ text: String) throws -> String {
        let name = text.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { throw Invalid(Phrase("a rule needs a name", context: "rule")) }
        guard name.count <= maximumNameLength else {
            throw Invalid(
                Phrase(
                    "a rule's name has at most {count} characters", context: "rule",
                    ["count": String(maximumNameLength)]))
        }
        guard
            name.unicodeScalars.allSatisfy({
                CharacterSet.alphanumerics.contains($0) || " -_".unicodeScalars.contains($0)
            })
        else {
            throw Invalid(notARuleName(name))
        }
        return name
    }

    static func notARuleName(_ name: String) -> Phrase {
        Phrase(
            "\"{name}\" is not a rule name: use letters, digits, spaces, - and _", context: "rule",
            ["name": String(name.prefix(40))])
    }
}

/// A set of weekdays, numbered as the Gregorian calendar does (1 is Sunday … 7 Saturday).
public struct Weekdays: Hashable, Codable, Sendable, CustomStringConvertible {
    public var days: Set<Int>

    public init(_ days: Set<Int>) { self.days = days.filter { (1...7).contains($0) } }

    public static let every = Weekdays(Set(1...7))
    public var isEvery: Bool { days.count == 7 }

    static let names = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]

    private static let fullNames = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]

    /// `mon` or `monday` → 2.
    static func number(_ name: String) -> Int? {
        (names.firstIndex(of: name) ?? fullNames.firstIndex(of: name)).map { $0 + 1 }
    }

    /// The days in Monday-first order, as the command line writes them (`mon,wed,fri`; `every`).
    public var description: String {
        if isEvery { return "every" }
        let ordered = [2, 3, 4, 5, 6, 7, 1].filter(days.contains)
        if ordered == [2, 3, 4, 5, 6] { return "mon-fri" }
        if ordered == [7, 1] { return "sat,sun" }
        return ordered.map { Self.names[$0 - 1] }.joined(separator: ",")
    }

    /// The days for people, in Monday-first order: "every day", "Monday to Friday",
    /// "Saturday and Sunday", or their names.
    public var phrase: Phrase.Value {
        let ordered = [2, 3, 4, 5, 6, 7, 1].filter(days.contains)
        if isEvery { return .phrase(Phrase("every day", context: "weekdays")) }
        if ordered == [2, 3, 4, 5, 6] { return .phrase(Phrase("Monday to Friday", context: "weekdays")) }
        if ordered == [7, 1] { return .phrase(Phrase("Saturday and Sunday", context: "weekdays")) }
        return .list(ordered.map { .phrase(Self.dayNames[$0 - 1]) })
    }

    private static let dayNames = [
        Phrase("Sunday", context: "weekday"), Phrase("Monday", context: "weekday"),
        Phrase("Tuesday", context: "weekday"),
        Phrase("Wednesday", context: "weekday"), Phrase("Thursday", context: "weekday"),
        Phrase("Friday", context: "weekday"), Phrase("Saturday", context: "weekday"),
    ]

    public func contains(_ weekday: Int) -> Bool { days.contains(weekday) }
}

/// An hour and minute of the local day.
public struct TimeOfDay: Hashable, Codable, Sendable, Comparable, CustomStringConvertible {
    public var hour: Int
    public var minute: Int

    public init(hour: Int, minute: Int) {
        self.hour = hour
        self.minute = minute
    }

    public var minutes: Int { hour * 60 + minute }
    public var description: String { String(format: "%02d:%02d", hour, minute) }
    public static func < (a: TimeOfDay, b: TimeOfDay) -> Bool { a.minutes < b.minutes }
}
