@_spi(Screenward) import DeviceActivity
@_spi(Screenward) import FamilyControls
import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardBasics
import ScreenwardIPC
import UsageLedger

/// Our own rules (`screenward limit`, `downtime`, `allow`) as one more app of the
/// owner, `org.screenward.rules`, whose monitor, shield configuration and shield
/// action handler are built in: it registers activities, writes settings stores and
/// answers shields through the same requests any app sends, over an in-process
/// transport. What it adds is the rules themselves, kept in the owner's ledger.
///
/// It runs on its owner's loop, one use at a time (`ExclusiveAccess`, no lock), and is
/// built by `OwnerStack.startRules`, whose transport hands the owner's pushes to it after
/// the use that made them, as a socket's would.
public final class RulesApp: Sendable {
    public static let bundleIdentifier = "org.screenward.rules"
    /// The member its grant is recorded as: not `.child`, so a guardian's app may still hold that.
    public static let member = "builtin"

    /// Where the rules are kept, which decides what extra time looks like.
    public enum Placement: String, Sendable {
        /// A person's own rules: "15 more minutes" on the shield.
        case individual
        /// A managed user's rules, set by guardians: "Ask for more time".
        case managed
    }

    /// A desktop notification for the person.
    public struct Notice: Sendable, Hashable {
        public var title: String
        public var body: String
        public init(title: String, body: String) {
            self.title = title
            self.body = body
        }
    }

    /// What the app needs of its owner beyond the requests any app sends.
    public struct Owner: Sendable {
        /// Focused seconds of an event in the rules app's own tokens, over `[from, to)`.
        public var usage: @Sendable (DeviceActivityEvent, Date, Date) throws -> TimeInterval
        public var directory: ItemDirectory
        public var now: @Sendable () -> Date
        public var calendar: @Sendable () -> Calendar

        public init(
            usage: @escaping @Sendable (DeviceActivityEvent, Date, Date) throws -> TimeInterval,
            directory: ItemDirectory,
            now: @escaping @Sendable () -> Date = { Date() },
            calendar: @escaping @Sendable () -> Calendar = { .current }
        ) {
            self.usage = usage
            self.directory = directory
            self.now = now
            self.calendar = calendar
        }
    }

    private let core: ExclusiveAccess<RulesCore>

    /// - Parameters:
    ///   - transport: to the owner, in this process, with deferred pushes.
    ///   - warningLeads: how long before a limit runs out or a downtime starts the
    ///     person is warned (5 and 1 minutes; tests scale them down).
    public init(
        placement: Placement, ledger: Ledger, transport: DirectTransport, owner: Owner, texts: RuleTexts,
        warningLeads: [TimeInterval] = [300, 60], language: @escaping @Sendable () -> String,
        notify: @escaping @Sendable (Notice) -> Void, report: @escaping @Sendable (String) -> Void
    ) {
        let client = ServiceClient(transport: transport, bundleIdentifier: Self.bundleIdentifier)
        core = ExclusiveAccess(
            RulesCore(
                placement: placement, ledger: ledger, client: client, owner: owner, texts: texts,
                warningLeads: warningLeads.sorted(by: >), language: language, notify: notify, report: report),
            what: "the rules app")
    }

    /// Authorizes the app, attaches its monitor and shield handlers, and brings the
    /// activities and stores in line with the rules (after a restart: with what
    /// happened meanwhile).
    public func start() throws {
        let app = self
        try core { core in
            try core.start(
                callback: { message in app.core { $0.received(callback: message) } },
                configure: { request in app.core { $0.received(configure: request) } },
                action: { request in app.core { $0.received(action: request) } })
        }
    }

    /// Answers one of `RulesMethods` from `actor` (a name for the record), for the
    /// person this owner keeps. Whose rules they are was settled by the caller.
    public func handle(frame: Data, actor: String, mayChange: Bool) -> Data? {
        core { $0.handle(frame: frame, actor: actor, mayChange: mayChange) }
    }

    /// Hooks for the guardians (the daemon records and announces requests and answers).
    public func observe(
        record: @escaping @Sendable (_ kind: String, _ actor: String?, _ what: Phrase) -> Void,
        onRequest: @escaping @Sendable (TimeRequest) -> Void
    ) {
        core { core in
            core.record = record
            core.onRequest = onRequest
        }
    }

    /// Extra time on every limit that applies today (a guardian's, approved at the child's
    /// desktop); nil seconds: the rest of the day.
    public func giveExtraTime(_ seconds: TimeInterval?, by actor: String) throws -> RuleOutcome {
        try core { try $0.giveExtraTime(seconds, by: actor) }
    }

    /// No rule shields anything for `seconds`.
    public func pause(for seconds: TimeInterval, by actor: String) throws -> RuleOutcome {
        try core { try $0.pause(for: seconds, by: actor) }
    }

    /// Makes the person's rules the household's (docs/household.md), bringing activities
    /// and shields in line; says whether anything changed.
    public func adoptHouseholdRules(_ rules: HouseholdRules) throws -> Bool {
        try core { try $0.adopt(rules) }
    }

    /// A guardian's answer to a request for more time, given on another computer of the
    /// household (docs/household.md): as if given here.
    public func answerRequest(_ id: Int64, approve: Bool, seconds: TimeInterval?, by actor: String) throws
        -> RuleOutcome
    {
        try core { try $0.answerRequest(id, approve: approve, seconds: seconds, by: actor) }
    }

    /// Extra time given on another computer of the household, just kept in the ledger: it
    /// counts here too (docs/household.md).
    public func extraTimeGivenElsewhere(_ grants: [SharedExtraTime]) throws {
        try core { try $0.extraTimeGivenElsewhere(grants) }
    }

    /// Pending requests for more time, and those of today.
    public func requests() throws -> [TimeRequest] {
        try core { try $0.requests() }
    }

    /// Each rule today (the tray and `screenward status` show it).
    public func status(language: String) throws -> RulesStatus {
        try core { try $0.status(language: language) }
    }
}
