import Foundation
import ScreenTimePolicy
import ScreenwardBasics
import ScreenwardIPC

/// The daemon asks a managed session's agent to put a guardian's approval on screen.
public struct GuardianAsk: Sendable, Hashable, Codable {
    public enum Purpose: String, Sendable, Hashable, Codable {
        /// An app asks for `.child`.
        case authorize
        /// An app that holds `.child` asks to give it up.
        case revoke
        /// The managed user asks a guardian, from their tray, to change their rules now
        /// (`action` says what: "give 15 more minutes on today's limits").
        case rules
        /// An app that holds `.child` asks, ahead, to restrict less (`reason` says why, in
        /// its words): clearing a store, stopping a schedule, changing its setup.
        case loosen
        /// The managed user asks, from an app's shield, for access to what it covers (`item`
        /// names it): no dialog at their desk, the guardians answer from their own accounts.
        case access
    }

    public var id: UInt64
    public var purpose: Purpose
    public var appName: String
    public var bundleIdentifier: String
    /// The managed user's account name.
    public var child: String
    /// The accounts that may approve, in the order the dialog lists them.
    public var guardians: [String]
    /// What a `.rules` ask asks for, in English (for the record).
    public var action: String?
    /// What a `.rules` ask asks for (the dialog says it in the session's language).
    public var guardianAction: GuardianAction?
    /// Why a `.loosen` ask asks, as the app wrote it (control characters removed, at most
    /// `GuardianApprovalRequest.maximumReasonLength` characters).
    public var reason: String?
    /// What an `.access` ask is for: the shielded application's or website's name.
    public var item: String?

    public init(
        id: UInt64, purpose: Purpose, appName: String, bundleIdentifier: String, child: String, guardians: [String]
    ) {
        self.id = id
        self.purpose = purpose
        self.appName = appName
        self.bundleIdentifier = bundleIdentifier
        self.child = child
        self.guardians = guardians
    }

    /// The dialog's question ("Homework wants to manage kid's screen time"), in English.
    public var question: String { question(in: .english) }

    /// The dialog's question in `texts`' language.
    public func question(in texts: Translations) -> String {
        let values = ["app": appName, "child": child]
        switch purpose {
        case .authorize:
            return texts("{app} wants to manage {child}'s screen time", context: "guardianDialog.question", values)
        case .revoke:
            return texts(
                "{app} wants to stop managing {child}'s screen time", context: "guardianDialog.question", values)
        case .rules:
            guard let guardianAction else {
                return texts(
                    "{child} asks a guardian to change their rules", context: "guardianDialog.question", values)
            }
            return texts(
                "{child} asks a guardian to {action}", context: "guardianDialog.question",
                ["child": child, "action": guardianAction.request(in: texts)])
        case .access:
            return texts(
                "{child} asks for access to {item} (shielded by {app})", context: "guardianDialog.question",
                ["app": appName, "child": child, "item": item ?? ""])
        case .loosen:
            return texts(
                "{app} asks to lift some of {child}'s restrictions: {reason}", context: "guardianDialog.question",
                ["app": appName, "child": child, "reason": reason ?? ""])
        }
    }
}

/// A guardian's answer typed into the agent's dialog: their account and a one-time code
/// from their authenticator app. The code is checked and dropped: never logged, never
/// stored, never printed (`description` hides it); once used it is worth nothing anyway.
public struct GuardianAnswer: Sendable, Hashable, Codable, CustomStringConvertible {
    public var ask: UInt64
    /// nil: the dialog was cancelled.
    public var guardian: String?
    public var code: String?
    /// Why the dialog voided itself (it lost the keyboard it holds): no code counts.
    public var voided: Phrase?

    public init(ask: UInt64, guardian: String?, code: String?, voided: Phrase? = nil) {
        self.ask = ask
        self.guardian = guardian
        self.code = code
        self.voided = voided
    }

    public static func cancelled(_ ask: UInt64) -> GuardianAnswer { GuardianAnswer(ask: ask, guardian: nil, code: nil) }

    public static func voided(_ ask: UInt64, because why: Phrase) -> GuardianAnswer {
        GuardianAnswer(ask: ask, guardian: nil, code: nil, voided: why)
    }

    public var description: String {
        if voided != nil { return "ask \(ask) voided" }
        return guardian.map { "answer to ask \(ask) by \($0)" } ?? "ask \(ask) cancelled"
    }
}

/// What the daemon made of an answer; the dialog closes on anything but `.tryAgain`.
public enum GuardianVerdict: Sendable, Hashable, Codable {
    case approved
    /// A wrong, spent or malformed code (or an account that is not a guardian's, or one
    /// with no authenticator); with a wait when too many wrong ones came in a row.
    case tryAgain(message: String, notBefore: Date?)
    case cancelled
    /// The ask is over (the app went away, or it timed out).
    case closed
}

public struct GuardianAskClosed: Sendable, Hashable, Codable {
    public var ask: UInt64
    public init(ask: UInt64) { self.ask = ask }
}

extension AgentLinkMethods {
    /// Daemon → agent: show the dialog.
    public static let askGuardian = PushKind<GuardianAsk>("agent.ask-guardian")
    /// Daemon → agent: take the dialog down (the app left, or the ask timed out).
    public static let closeAsk = PushKind<GuardianAskClosed>("agent.close-ask")
    /// Agent → daemon: the guardian's answer (or a cancel).
    public static let answerGuardian = ServiceMethod<GuardianAnswer, GuardianVerdict>("agent.answer-guardian")
}

/// An ask waiting for a guardian, as a guardian's own account lists it (`screenward request
/// list`, the tray): they answer it there, with no code, as themselves.
public struct WaitingAsk: Sendable, Hashable, Codable {
    public var id: UInt64
    /// The managed user's account name.
    public var user: String
    public var appName: String
    public var bundleIdentifier: String
    /// The dialog's question, in the language asked for.
    public var question: String
    public var askedAt: Date

    public init(id: UInt64, user: String, appName: String, bundleIdentifier: String, question: String, askedAt: Date) {
        self.id = id
        self.user = user
        self.appName = appName
        self.bundleIdentifier = bundleIdentifier
        self.question = question
        self.askedAt = askedAt
    }
}

/// A guardian's answer from their own account to a `WaitingAsk`.
public struct WaitingAskAnswer: Sendable, Hashable, Codable {
    public var id: UInt64
    public var approve: Bool
    public init(id: UInt64, approve: Bool) {
        self.id = id
        self.approve = approve
    }
}

extension ChildMethods {
    /// The asks waiting for a guardian: every managed user's for a guardian (or the one
    /// named), a managed user's own for them.
    public static let waitingAsks = ServiceMethod<RulesQuery, [WaitingAsk]>("child.waiting-asks")
    /// A guardian approves or refuses one, from their own account.
    public static let answerAsk = ServiceMethod<WaitingAskAnswer, Empty>("child.answer-ask")
}
