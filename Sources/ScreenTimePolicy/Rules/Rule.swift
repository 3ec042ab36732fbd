import Foundation
import ScreenwardIPC

/// One of a person's rules, as they set it on the command line or a guardian set it
/// for them: a daily limit on some applications, or a downtime when only the
/// always-allowed applications may be used.
public struct Rule: Codable, Hashable, Sendable {
    public enum Kind: String, Codable, Sendable {
        case limit, downtime
    }

    public var name: String
    public var kind: Kind
    /// The days it applies on (a downtime: the days it starts on).
    public var days: Weekdays
    /// A limit's applications and categories.
    public var items: RuleItems?
    /// A limit's daily allowance, in seconds.
    public var daily: TimeInterval?
    /// A downtime's start and end (an end at or before the start is the next day's).
    public var from: TimeOfDay?
    public var to: TimeOfDay?
    /// A binding rule: relaxing or removing it takes effect only this many seconds
    /// after it was asked for.
    public var lockedFor: TimeInterval?
    /// How often a day "15 more minutes" may be taken on one's own rule.
    public var extraTimePerDay: Int

    public static let defaultExtraTimePerDay = 1
    /// What "15 more minutes" gives.
    public static let extraTime: TimeInterval = 15 * 60

    public static func limit(
        _ name: String, items: RuleItems, daily: TimeInterval, days: Weekdays = .every, lockedFor: TimeInterval? = nil,
        extraTimePerDay: Int = defaultExtraTimePerDay
    ) -> Rule {
        Rule(
            name: name, kind: .limit, days: days, items: items, daily: daily, lockedFor: lockedFor,
            extraTimePerDay: extraTimePerDay)
    }

    public static func downtime(
        _ name: String, from: TimeOfDay, to: TimeOfDay, days: Weekdays = .every, lockedFor: TimeInterval? = nil,
        extraTimePerDay: Int = defaultExtraTimePerDay
    ) -> Rule {
        Rule(
            name: name, kind: .downtime, days: days, from: from, to: to, lockedFor: lockedFor,
            extraTimePerDay: extraTimePerDay)
    }

    /// Why the rule cannot be kept, or nil.
    public var problem: Phrase? {
        if (try? RuleText.name(name)) == nil { return RuleText.notARuleName(name) }
        if days.days.isEmpty { return Phrase("the rule {name} applies on no day", context: "rule", ["name": name]) }
        if extraTimePerDay < 0 || extraTimePerDay > 96 {
            return Phrase("extra time can be taken 0 to 96 times a day", context: "rule")
        }
        if let lockedFor, lockedFor < 1 || lockedFor > 30 * 86_400 {
            return Phrase("a rule can be locked for 1 second to 30 days", context: "rule")
        }
        switch kind {
        case .limit:
            guard let items, !items.isEmpty else {
                return Phrase(
                    "the limit {name} names no application, category or website", context: "rule", ["name": name])
            }
            guard let daily, daily >= 1 else {
                return Phrase("a limit of 0 means nothing: give at least 1s", context: "rule")
            }
            guard daily < 86_400 else { return Phrase("a daily limit must be shorter than a day", context: "rule") }
        case .downtime:
            guard let from, let to else {
                return Phrase("the downtime {name} needs a start and an end", context: "rule", ["name": name])
            }
            guard from != to else {
                return Phrase(
                    "the downtime {name} starts and ends at {time}: it would never end", context: "rule",
                    ["name": name, "time": from.description])
            }
        }
        return nil
    }

    // MARK: Tightening and relaxing

    /// Whether `self` holds the person to at least everything `old` did (so it may
    /// replace a locked rule at once).
    public func isAtLeastAsStrict(as old: Rule) -> Bool {
        guard kind == old.kind, (lockedFor ?? 0) >= (old.lockedFor ?? 0), extraTimePerDay <= old.extraTimePerDay else {
            return false
        }
        switch kind {
        case .limit:
            guard let daily, let oldDaily = old.daily, let items, let oldItems = old.items else { return false }
            return daily <= oldDaily && days.days.isSuperset(of: old.days.days) && items.contains(oldItems)
        case .downtime:
            return downtimeMinutes.isSuperset(of: old.downtimeMinutes)
        }
    }

    /// The minutes of the week (0 is Sunday 00:00) a downtime covers.
    var downtimeMinutes: IndexSet {
        guard kind == .downtime, let from, let to else { return [] }
        let week = 7 * 1440
        var covered = IndexSet()
        let length = (to.minutes - from.minutes + 1440) % 1440
        for day in days.days {
            let start = (day - 1) * 1440 + from.minutes
            for minute in start..<(start + length) { covered.insert(minute % week) }
        }
        return covered
    }

    /// The downtime's length, in seconds on a day without a clock change.
    var downtimeLength: TimeInterval {
        guard let from, let to else { return 0 }
        return TimeInterval((to.minutes - from.minutes + 1440) % 1440 * 60)
    }
}

/// What a limit counts: applications (by id) and categories, named on the command
/// line, and tokens of `org.screenward.rules` from a selection file.
public struct RuleItems: Codable, Hashable, Sendable {
    /// Application ids as `screenward usage` shows them (`firefox.desktop`, `wmclass:Game`).
    public var applications: [String]
    /// Category ids of the category table (`Game`, `Social`).
    public var categories: [String]
    /// Tokens of the rules app from a `FamilyActivitySelection` file.
    public var applicationTokens: [String]
    public var categoryTokens: [String]
    /// Websites (registrable domains in ASCII: `youtube.com`), in any browser.
    public var websites: [String]

    public init(
        applications: [String] = [], categories: [String] = [], applicationTokens: [String] = [],
        categoryTokens: [String] = [], websites: [String] = []
    ) {
        self.applications = applications
        self.categories = categories
        self.applicationTokens = applicationTokens
        self.categoryTokens = categoryTokens
        self.websites = websites
    }

    // Rules stored before websites came have none.
    enum CodingKeys: String, CodingKey { case applications, categories, applicationTokens, categoryTokens, websites }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        applications = try container.decode([String].self, forKey: .applications)
        categories = try container.decode([String].self, forKey: .categories)
        applicationTokens = try container.decode([String].self, forKey: .applicationTokens)
        categoryTokens = try container.decode([String].self, forKey: .categoryTokens)
        websites = try container.decodeIfPresent([String].self, forKey: .websites) ?? []
    }

    public var isEmpty: Bool {
        applications.isEmpty && categories.isEmpty && applicationTokens.isEmpty && categoryTokens.isEmpty
            && websites.isEmpty
    }
    public var count: Int {
        applications.count + categories.count + applicationTokens.count + categoryTokens.count + websites.count
    }

    func contains(_ other: RuleItems) -> Bool {
        Set(applications).isSuperset(of: other.applications) && Set(categories).isSuperset(of: other.categories)
            && Set(applicationTokens).isSuperset(of: other.applicationTokens)
            && Set(categoryTokens).isSuperset(of: other.categoryTokens)
            && Set(websites).isSuperset(of: other.websites)
    }
}
