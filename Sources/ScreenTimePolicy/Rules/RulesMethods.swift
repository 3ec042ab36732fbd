import Foundation
import ScreenwardBasics
import ScreenwardIPC

/// What `screenward limit|downtime|allow|status` ask of the owner of a person's
/// rules: their own agent, or the system daemon for a managed user (`user` names them;
/// only a guardian names another). The owner runs the built-in app that keeps them.
public enum RulesMethods {
    public static let list = ServiceMethod<RulesQuery, RulesListing>("rules.list")
    public static let status = ServiceMethod<RulesQuery, RulesStatus>("rules.status")
    public static let add = ServiceMethod<RuleEdit, RuleOutcome>("rules.add")
    /// Replaces a rule's definition (same name, same kind).
    public static let change = ServiceMethod<RuleEdit, RuleOutcome>("rules.change")
    public static let remove = ServiceMethod<RuleRemoval, RuleOutcome>("rules.remove")
    public static let allow = ServiceMethod<AllowanceEdit, RuleOutcome>("rules.allow")
    public static let disallow = ServiceMethod<AllowanceEdit, RuleOutcome>("rules.disallow")
    /// A person's own "15 more minutes" on one of their rules.
    public static let extraTime = ServiceMethod<ExtraTimeRequest, RuleOutcome>("rules.extra-time")
    /// A managed user's requests for more time: pending, and answered today.
    public static let requests = ServiceMethod<RulesQuery, [TimeRequest]>("rules.requests")
    /// A guardian's answer to one.
    public static let answer = ServiceMethod<RequestAnswer, RuleOutcome>("rules.answer")
    /// A managed user asks for more time on one of their limits (from the tray).
    public static let ask = ServiceMethod<ExtraTimeRequest, RuleOutcome>("rules.ask")
    /// No rule shields anything for a while (a guardian's "Pause limits for an hour").
    public static let pause = ServiceMethod<PauseRequest, RuleOutcome>("rules.pause")
    /// A managed user's tray asks for a guardian's action, approved with a guardian's
    /// password in a dialog of the session (the reply comes once they answered).
    public static let guardianAction = ServiceMethod<GuardianActionRequest, RuleOutcome>("rules.guardian-action")

    /// Every rules method: the rules app's, and the guardian's action the daemon asks for.
    public static var all: Set<String> { RulesCore.routes.methods.union([guardianAction.name]) }
    /// The ones that change nothing of the rules (a managed user may send them for themself).
    public static let reading = [list.name, status.name, requests.name, ask.name, guardianAction.name]

    /// Whether `method` is one of these (the owners route them to the rules app).
    public static func answers(_ method: String) -> Bool { all.contains(method) }
}

/// Whose rules: nil for the caller's own.
public protocol RulesRequest: Codable, Sendable {
    var user: String? { get }
}

public struct RulesQuery: RulesRequest, Hashable {
    public var user: String?
    /// The language of names and texts in the answer (en, ko, vi).
    public var language: String
    public init(user: String?, language: String) {
        self.user = user
        self.language = language
    }
}

public struct RuleEdit: RulesRequest, Hashable {
    public var user: String?
    public var rule: Rule
    public init(user: String?, rule: Rule) {
        self.user = user
        self.rule = rule
    }
}

public struct RuleRemoval: RulesRequest, Hashable {
    public var user: String?
    public var name: String
    public var kind: Rule.Kind
    public init(user: String?, name: String, kind: Rule.Kind) {
        self.user = user
        self.name = name
        self.kind = kind
    }
}

public struct AllowanceEdit: RulesRequest, Hashable {
    public var user: String?
    public var applications: [String]
    public init(user: String?, applications: [String]) {
        self.user = user
        self.applications = applications
    }
}

public struct ExtraTimeRequest: RulesRequest, Hashable {
    public var user: String?
    public var rule: String
    /// A downtime's extra minutes are for one application.
    public var application: String?
    public init(user: String?, rule: String, application: String? = nil) {
        self.user = user
        self.rule = rule
        self.application = application
    }
}

public struct RequestAnswer: RulesRequest, Hashable {
    public var user: String?
    public var id: Int64
    public var approve: Bool
    /// What is granted; nil: the rest of the day (or of the downtime).
    public var seconds: TimeInterval?
    /// The household's computer the request was asked on (nil: this one; docs/household.md).
    public var computer: String?
    public init(user: String?, id: Int64, approve: Bool, seconds: TimeInterval?, computer: String? = nil) {
        self.user = user
        self.id = id
        self.approve = approve
        self.seconds = seconds
        self.computer = computer
    }
}

/// What a guardian can do at a managed user's desktop, from the user's tray.
public enum GuardianAction: String, Codable, Sendable, CaseIterable {
    case add15Minutes, add1Hour, addRestOfDay, pauseForAnHour, lockNow

    /// For the dialog: "\(child) asks a guardian to …", in English.
    public var request: String { request(in: .english) }

    /// For the dialog, in `texts`' language.
    public func request(in texts: Translations) -> String { texts(phrase) }

    /// What it does, as the dialog and the guardians' record say it (context guardianAction).
    public var phrase: Phrase {
        switch self {
        case .add15Minutes: Phrase("give 15 more minutes on today's limits", context: "guardianAction")
        case .add1Hour: Phrase("give 1 more hour on today's limits", context: "guardianAction")
        case .addRestOfDay: Phrase("lift today's limits for the rest of the day", context: "guardianAction")
        case .pauseForAnHour: Phrase("pause all limits for an hour", context: "guardianAction")
        case .lockNow: Phrase("lock this session now", context: "guardianAction")
        }
    }

    /// Extra time it gives (nil inside: the rest of the day); nil for the others.
    public var extraTime: TimeInterval?? {
        switch self {
        case .add15Minutes: .some(900)
        case .add1Hour: .some(3600)
        case .addRestOfDay: .some(nil)
        case .pauseForAnHour, .lockNow: nil
        }
    }
}

public struct GuardianActionRequest: RulesRequest, Hashable {
    public var user: String?
    public var action: GuardianAction
    public init(user: String?, action: GuardianAction) {
        self.user = user
        self.action = action
    }
}

public struct PauseRequest: RulesRequest, Hashable {
    public var user: String?
    public var seconds: TimeInterval
    public init(user: String?, seconds: TimeInterval) {
        self.user = user
        self.seconds = seconds
    }
}

/// What a change did: taken at once, or (a relaxation of a locked rule) waiting.
public struct RuleOutcome: Codable, Sendable, Hashable {
    /// In English.
    public var message: String
    /// The message as written, for a reader in another language.
    public var phrase: Phrase?
    /// When a relaxation takes effect; nil when it already has.
    public var effectiveAt: Date?
    public init(_ phrase: Phrase, effectiveAt: Date? = nil) {
        self.message = phrase.description
        self.phrase = phrase
        self.effectiveAt = effectiveAt
    }
}

/// The rules as they are kept.
public struct RulesListing: Codable, Sendable, Hashable {
    public struct Entry: Codable, Sendable, Hashable {
        public var rule: Rule
        public var createdAt: Date
        public var createdBy: String
        /// The relaxation it is waiting for, if any.
        public var pending: PendingRuleChange?
        /// People's names for what a limit counts (`Firefox`, `Games`).
        public var itemNames: [String]
    }

    public var rules: [Entry]
    public var allowed: [AllowedApplication]
    /// The allowed applications' names, by id.
    public var allowedNames: [String: String]
}

/// Each rule today: what was used, what is left, what it shields now.
public struct RulesStatus: Codable, Sendable, Hashable {
    public struct Entry: Codable, Sendable, Hashable {
        public var name: String
        public var kind: Rule.Kind
        /// Whether it applies today (a limit) or is running or ahead today (a downtime).
        public var appliesToday: Bool
        /// A limit: the allowance today (the daily limit plus extra time), used, left.
        public var allowance: TimeInterval?
        public var used: TimeInterval?
        public var remaining: TimeInterval?
        /// Extra time given today, in seconds (nil entries: for the rest of the day).
        public var extraTime: TimeInterval?
        public var extraTimeTakenToday: Int
        public var extraTimePerDay: Int
        /// A downtime: the interval running now, or the next one.
        public var downtime: DateInterval?
        public var isDowntimeNow: Bool
        /// When a used-up limit resets.
        public var resetsAt: Date?
        /// The names of what the rule shields now (empty: nothing).
        public var shieldedNow: [String]
        public var lockedFor: TimeInterval?
        public var pending: PendingRuleChange?
    }

    public var rules: [Entry]
    public var allowed: [String]
    public var at: Date
    /// Every rule is paused until then (a guardian's pause).
    public var pausedUntil: Date?
}
