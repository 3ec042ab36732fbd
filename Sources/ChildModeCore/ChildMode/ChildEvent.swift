import Foundation
import ScreenwardIPC

/// Something that happened to a managed user's limits, kept for their guardians
/// (`screenward child events USER`): who did what, when.
public struct ChildEvent: Sendable, Hashable, Codable {
    public struct Kind: RawRepresentable, Sendable, Hashable, Codable, ExpressibleByStringLiteral,
        CustomStringConvertible
    {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(stringLiteral value: String) { rawValue = value }
        public var description: String { rawValue }

        /// A guardian made the account a managed user.
        public static let managed: Kind = "managed"
        /// A guardian stopped managing the account.
        public static let unmanaged: Kind = "unmanaged"
        /// Someone tried something the daemon refused (the detail says who and what).
        public static let refused: Kind = "refused"
        /// A guardian approved an app's request with their one-time code (the detail says what).
        public static let approved: Kind = "approved"
        /// A guardian's password was wrong, or an app's request was cancelled or ran out of time.
        public static let notApproved: Kind = "not-approved"
        /// The managed user asked the guardians for access from an app's shield ("Ask for access").
        public static let accessRequested: Kind = "access-requested"
        /// The session's agent ended or could not be started; another is started.
        public static let agentFailed: Kind = "agent-failed"
        /// The daemon locked the session: it could not keep an agent running.
        public static let sessionLocked: Kind = "session-locked"
        /// The daemon ended the session: it stayed unenforced after the lock.
        public static let sessionEnded: Kind = "session-ended"
        /// A guardian changed the managed user's rules (limits, downtime, always allowed).
        public static let rulesChanged: Kind = "rules-changed"
        /// A process of a covered window is held (frozen or stopped) while its shield is up.
        public static let programHeld: Kind = "program-held"
        /// A held process was ended: from its shield, or because it ran again.
        public static let programClosed: Kind = "program-closed"
        /// Someone moved, hid or took a shield from the window manager; it was put back.
        public static let shieldTampered: Kind = "shield-tampered"
        /// The window manager of the child's session stopped (killed, or crashed); the agent
        /// follows the windows without it.
        public static let windowManagerStopped: Kind = "window-manager-stopped"
        /// A browser's window had the focus while no report of Screenward's extension named
        /// its process: its windows are shielded as not supported.
        public static let unsupportedBrowser: Kind = "unsupported-browser"
    }

    public var at: Date
    public var kind: Kind
    /// Who acted: an account name, or "screenward-daemon".
    public var actor: String
    /// What happened, in English (for scripts, `--json`, and the household's other computers).
    public var detail: String
    /// What happened as written, for a guardian reading in another language; nil for an event
    /// recorded as a text only (by an older daemon, or on another computer of the household).
    public var phrase: Phrase?
    /// The computer of the household it happened on (docs/household.md); nil: this one.
    public var computer: String?

    public init(at: Date, kind: Kind, actor: String, detail: String, computer: String? = nil) {
        self.at = at
        self.kind = kind
        self.actor = actor
        self.detail = detail
        self.computer = computer
    }

    public init(at: Date, kind: Kind, actor: String, phrase: Phrase, computer: String? = nil) {
        self.init(at: at, kind: kind, actor: actor, detail: phrase.description, computer: computer)
        self.phrase = phrase
    }
}
