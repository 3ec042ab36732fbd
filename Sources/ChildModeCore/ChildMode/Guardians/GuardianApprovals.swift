import AppExtensions
import Foundation
import ScreenTimePolicy
import ScreenwardBasics
import ScreenwardIPC

/// The requests waiting for a guardian, on the daemon's loop: each is shown by an agent
/// of the managed user's session; the agent sends back the guardian's answer, a one-time
/// code from their authenticator app (never their login password: the child's X clients
/// can read every key typed in that session), checked by `checkCode` behind a limiter;
/// the outcome goes to whoever began the request. Codes pass through and are dropped. One
/// dialog is open in a child's session at a time, and none for a while after one ended
/// without an approval: a code typed there approves what the guardian saw, or nothing.
public final class GuardianApprovals {
    public enum Outcome: Sendable, Equatable {
        case approved(by: String)
        /// Why not: a phrase, for whoever began the request may read another language (the
        /// guardians' record keeps its English).
        case notApproved(Phrase)
    }

    /// How long a dialog may stay unanswered.
    public static let timeout: TimeInterval = 300
    /// After a dialog ends without an approval (cancelled, voided, unanswered), how long no
    /// other may come up in that session: longer than a code stays good (its 30-second step and
    /// the next), so a code typed into the dialog that ended, and read by a program of the
    /// child's, is stale before any other dialog could take it.
    public static let quietAfterUnapproved: TimeInterval = 90

    public struct Services {
        /// The accounts that may approve, for the dialog's list.
        public var guardianNames: () -> [String]
        public var isGuardian: (String) -> Bool
        /// Shows `ask` on an agent of user `uid`'s session; false when none is attached.
        public var show: (_ uid: UInt32, GuardianAsk) -> Bool
        public var close: (_ uid: UInt32, _ ask: UInt64) -> Void
        /// Checks a guardian's one-time code, and spends it if right (`GuardianCodes`).
        public var checkCode: (_ guardian: String, _ code: String) -> CodeCheck
        public var record: (ChildEvent, _ uid: UInt32) -> Void
        public var now: () -> Date
        /// The language user `uid`'s session speaks: the dialog's verdicts are in it.
        public var language: (_ uid: UInt32) -> String

        public init(
            guardianNames: @escaping () -> [String], isGuardian: @escaping (String) -> Bool,
            show: @escaping (UInt32, GuardianAsk) -> Bool,
            close: @escaping (UInt32, UInt64) -> Void, checkCode: @escaping (String, String) -> CodeCheck,
            record: @escaping (ChildEvent, UInt32) -> Void, now: @escaping () -> Date = { Date() },
            language: @escaping (UInt32) -> String = { _ in "en" }
        ) {
            self.language = language
            self.guardianNames = guardianNames
            self.isGuardian = isGuardian
            self.show = show
            self.close = close
            self.checkCode = checkCode
            self.record = record
            self.now = now
        }
    }

    private struct Pending {
        var ask: GuardianAsk
        var uid: UInt32
        /// Who waits for the outcome on a connection (nil: an ask nobody holds open).
        var requester: ServicePeer?
        var began: Date
        /// How long it may wait.
        var lasts: TimeInterval = GuardianApprovals.timeout
        var decide: (Outcome) -> Void
        /// Whether a dialog at the child's desk shows it.
        var hasDialog: Bool { ask.purpose != .access }
    }

    /// How long an ask for access waits for a guardian.
    public static let accessTimeout: TimeInterval = 3600

    private let services: Services
    private var pending: [UInt64: Pending] = [:]
    private var nextID: UInt64 = 1
    /// uid → until when no dialog comes up in their session (`quietAfterUnapproved`).
    private var quietUntil: [UInt32: Date] = [:]
    /// Keyed by guardian and by child: a child cycling through guardians' names gets no
    /// more tries. Wrong codes are limited as wrong passwords were: three free, then a wait.
    public private(set) var limiter: PasswordAttemptLimiter

    public init(services: Services, limiter: PasswordAttemptLimiter = PasswordAttemptLimiter()) {
        self.services = services
        self.limiter = limiter
    }

    public var pendingCount: Int { pending.count }

    /// Puts the question on the child's screen; `decide` is called once, with the outcome.
    /// Throws when no agent of the child's session can show it.
    public func begin(
        _ purpose: GuardianAsk.Purpose, app: InstalledApp, child: String, uid: UInt32, requester: ServicePeer,
        action: GuardianAction? = nil, reason: String? = nil,
        decide: @escaping (Outcome) -> Void
    ) throws {
        // One dialog at a time in a child's session, and the code typed there approves only
        // what it shows: a second request while one is open is refused, and voids the open one.
        // A child's program that read the code as the guardian typed it (any X client can) would
        // otherwise open a request of its own and type the code there first.
        if let (id, open) = pending.first(where: { $0.value.uid == uid && $0.value.hasDialog }) {
            // swift-format-ignore
            let why = Phrase("another request was made in {child}'s session while the guardian's dialog was open: the dialog was voided", context: "daemon", ["child": child])
            finish(id, .notApproved(why))
            // swift-format-ignore
            throw ServiceError(.unauthorized, Phrase("a guardian's dialog was open in {child}'s session: no other request may be made meanwhile, and that one was voided; ask again", context: "daemon", ["child": open.ask.child]))
        }
        if let until = quietUntil[uid], services.now() < until {
            // swift-format-ignore
            throw ServiceError(.unauthorized, Phrase("a guardian's dialog in {child}'s session ended without an approval a moment ago: ask again after {time}, or a guardian approves from their own account", context: "daemon", ["child": child, "time": Self.clock(until)]))
        }
        let guardians = services.guardianNames()
        var ask = GuardianAsk(
            id: nextID, purpose: purpose, appName: app.displayName, bundleIdentifier: app.bundleIdentifier,
            child: child, guardians: guardians)
        ask.action = action?.request
        ask.guardianAction = action
        ask.reason = reason
        nextID += 1
        guard services.show(uid, ask) else {
            // swift-format-ignore
            throw ServiceError(.unsupported, Phrase("no enforced desktop session of {child} is running to ask a guardian in: try again from {child}'s desktop session", context: "daemon", ["child": child]))
        }
        pending[ask.id] = Pending(ask: ask, uid: uid, requester: requester, began: services.now(), decide: decide)
    }

    /// The managed user asked, from `app`'s shield, for access to `item`: listed for the
    /// guardians (no dialog at the child's desk, where nobody may be), for an hour. False
    /// when the same is already waiting.
    @discardableResult
    public func beginAccess(
        app: InstalledApp, item: String, child: String, uid: UInt32, decide: @escaping (Outcome) -> Void
    ) -> Bool {
        guard
            !pending.values.contains(where: {
                $0.uid == uid && $0.ask.purpose == .access && $0.ask.bundleIdentifier == app.bundleIdentifier
                    && $0.ask.item == item
            })
        else { return false }
        var ask = GuardianAsk(
            id: nextID, purpose: .access, appName: app.displayName, bundleIdentifier: app.bundleIdentifier,
            child: child, guardians: services.guardianNames())
        ask.item = item
        nextID += 1
        pending[ask.id] = Pending(
            ask: ask, uid: uid, requester: nil, began: services.now(), lasts: Self.accessTimeout, decide: decide)
        let values = ["child": child, "item": item, "app": app.displayName, "id": app.bundleIdentifier]
        // swift-format-ignore
        let what = Phrase("{child} asked the guardians for access to {item} (shielded by {app}, {id})", context: "event", values)
        services.record(ChildEvent(at: services.now(), kind: .accessRequested, actor: child, phrase: what), uid)
        return true
    }

    /// The guardian's answer from the dialog of an agent of user `uid`; `reply` gets the
    /// verdict for the dialog.
    public func answer(_ answer: GuardianAnswer, fromAgentOf uid: UInt32, reply: (GuardianVerdict) -> Void) {
        guard let entry = pending[answer.ask], entry.uid == uid, entry.hasDialog else { return reply(.closed) }
        if let voided = answer.voided {
            // swift-format-ignore
            let why = Phrase("the guardian's dialog in {child}'s session was voided: {why}", context: "daemon", ["child": entry.ask.child, "why": voided])
            finish(answer.ask, .notApproved(why))
            return reply(.closed)
        }
        guard let guardian = answer.guardian, let code = answer.code else {
            let why = Phrase(
                "the dialog was cancelled in {child}'s session", context: "daemon", ["child": entry.ask.child])
            finish(answer.ask, .notApproved(why))
            return reply(.cancelled)
        }
        let now = services.now()
        let texts = Translations.forLanguage(services.language(uid))
        let childKey = "child:\(uid)"
        for key in [guardian, childKey] {
            if case .wait(let until) = limiter.check(key, now: now) {
                let message = texts(
                    "Too many wrong codes. Try again at {time}.", context: "guardianDialog.verdict",
                    ["time": Self.clock(until)])
                return reply(.tryAgain(message: message, notBefore: until))
            }
        }
        // For the guardians' record.
        let event = [
            "app": entry.ask.appName, "id": entry.ask.bundleIdentifier, "guardian": guardian, "child": entry.ask.child,
        ]
        guard services.isGuardian(guardian) else {
            // Not a guardian's account: counted like a wrong code, and nothing looked up.
            return reply(
                wrong(
                    guardian: guardian, childKey: childKey, entry: entry,
                    what: Phrase("{app} ({id}): {guardian} is not a guardian", context: "event", event), texts: texts))
        }
        switch services.checkCode(guardian, code) {
        case .accepted:
            limiter.recordSuccess(guardian)
            limiter.recordSuccess(childKey)
            finish(answer.ask, .approved(by: guardian))
            reply(.approved)
        case .wrong:
            reply(
                wrong(
                    guardian: guardian, childKey: childKey, entry: entry,
                    what: Phrase("{app} ({id}): a wrong code for {guardian}", context: "event", event), texts: texts))
        case .reused:
            // Someone read it off the screen, or the keyboard, and typed it again.
            reply(
                wrong(
                    guardian: guardian, childKey: childKey, entry: entry,
                    what: Phrase("{app} ({id}): a code of {guardian}'s that was already used", context: "event", event),
                    texts: texts))
        case .malformed:
            // Not a code: it cannot match, so it costs no try (a guardian who typed their
            // password by habit is told, not locked out); it is not recorded either.
            let message = texts(
                "That is not a code: type the 6 digits your authenticator app shows for Screenward.",
                context: "guardianDialog.notACode")
            reply(.tryAgain(message: message, notBefore: nil))
        case .notEnrolled:
            // swift-format-ignore
            let what = Phrase("{app} ({id}): {guardian} has no authenticator set up to approve at {child}'s desk", context: "event", event)
            services.record(ChildEvent(at: now, kind: .notApproved, actor: entry.ask.child, phrase: what), entry.uid)
            reply(.tryAgain(message: Self.notEnrolledAdvice(guardian, texts: texts), notBefore: nil))
        case .unavailable(let why):
            let message = texts(
                "The daemon could not check the code ({why}); approve from your own account instead.",
                context: "guardianDialog.verdict", ["why": why])
            reply(.tryAgain(message: message, notBefore: nil))
        }
    }

    /// The asks waiting, of the managed users `uids` (nil: everyone's), with their questions
    /// in `language`, oldest first.
    public func waiting(of uids: Set<UInt32>?, language: String) -> [WaitingAsk] {
        let texts = Translations.forLanguage(language)
        return pending.values.filter { uids?.contains($0.uid) ?? true }.sorted { $0.ask.id < $1.ask.id }.map {
            WaitingAsk(
                id: $0.ask.id, user: $0.ask.child, appName: $0.ask.appName, bundleIdentifier: $0.ask.bundleIdentifier,
                question: $0.ask.question(in: texts), askedAt: $0.began)
        }
    }

    /// A guardian's answer from their own account (the daemon checked who they are): no code,
    /// and the dialog at the child's desk comes down.
    public func answer(_ id: UInt64, approve: Bool, byGuardian guardian: String) throws {
        guard pending[id] != nil else {
            // swift-format-ignore
            throw ServiceError(.invalidArgument, Phrase("no ask {id} is waiting: it was answered, or the app that asked is gone", context: "daemon", ["id": "a\(id)"]))
        }
        let outcome =
            approve
            ? Outcome.approved(by: guardian)
            : .notApproved(Phrase("{guardian} said no", context: "daemon", ["guardian": guardian]))
        // No code was typed at the child's desk: nothing there to wait out.
        finish(id, outcome, quiet: false)
    }

    /// What a guardian without an authenticator is told at the child's desk.
    public static func notEnrolledAdvice(_ guardian: String, texts: Translations = .english) -> String {
        // swift-format-ignore
        texts("{guardian} has no authenticator app set up for Screenward, so cannot approve here. Approve from your own account (your Screenward tray, or `screenward request approve`), or set one up there with `screenward guardian enroll`.", context: "guardianDialog.verdict", ["guardian": guardian])
    }

    /// A wrong code (or name), counted against the guardian and the child; `what` is for the
    /// guardians' record.
    private func wrong(
        guardian: String, childKey: String, entry: Pending, what: Phrase, texts: Translations
    ) -> GuardianVerdict {
        let now = services.now()
        let decisions = [limiter.recordFailure(guardian, now: now), limiter.recordFailure(childKey, now: now)]
        services.record(ChildEvent(at: now, kind: .notApproved, actor: entry.ask.child, phrase: what), entry.uid)
        let until = decisions.compactMap { decision -> Date? in
            if case .wait(let until) = decision { until } else { nil }
        }.max()
        if let until {
            let message = texts(
                "Wrong code. Too many tries: wait until {time}.", context: "guardianDialog.verdict",
                ["time": Self.clock(until)])
            return .tryAgain(message: message, notBefore: until)
        }
        let message = texts(
            "Wrong code. Try again with the code your authenticator app shows now.", context: "guardianDialog.verdict")
        return .tryAgain(message: message, notBefore: nil)
    }

    /// A new agent attached for user `uid` (the last one died or was killed, dialog and
    /// all): what is still waiting is shown again.
    public func agentAttached(uid: UInt32) {
        for entry in pending.values where entry.uid == uid && entry.hasDialog { _ = services.show(uid, entry.ask) }
    }

    /// The app that asked is gone: its dialog comes down.
    public func requesterGone(_ peer: ServicePeer) {
        for (id, entry) in pending where entry.requester == peer {
            let why = Phrase("{app} quit before a guardian answered", context: "daemon", ["app": entry.ask.appName])
            finish(id, .notApproved(why))
        }
    }

    /// Ends asks older than `timeout`; returns when the next one would expire.
    @discardableResult
    public func expire() -> Date? {
        let now = services.now()
        for (id, entry) in pending where now.timeIntervalSince(entry.began) >= entry.lasts {
            let minutes = Int(entry.lasts / 60)
            let why =
                minutes == 1
                ? Phrase("nobody answered within 1 minute", context: "daemon")
                : Phrase("nobody answered within {minutes} minutes", context: "daemon", ["minutes": String(minutes)])
            finish(id, .notApproved(why), quiet: entry.hasDialog)
        }
        return pending.values.map { $0.began.addingTimeInterval($0.lasts) }.min()
    }

    /// `quiet`: after an outcome other than approval, no dialog comes up in the session for a while.
    private func finish(_ id: UInt64, _ outcome: Outcome, quiet: Bool = true) {
        guard let entry = pending.removeValue(forKey: id) else { return }
        if entry.hasDialog { services.close(entry.uid, id) }
        switch outcome {
        case .approved(let guardian):
            let what = Self.approved(entry.ask, by: guardian)
            services.record(ChildEvent(at: services.now(), kind: .approved, actor: guardian, phrase: what), entry.uid)
        case .notApproved(let why):
            if quiet { quietUntil[entry.uid] = services.now().addingTimeInterval(Self.quietAfterUnapproved) }
            let what = Self.notApproved(entry.ask, why: why)
            services.record(
                ChildEvent(at: services.now(), kind: .notApproved, actor: entry.ask.child, phrase: what), entry.uid)
        }
        entry.decide(outcome)
    }

    /// What the guardians' record says of an ask `guardian` approved.
    private static func approved(_ ask: GuardianAsk, by guardian: String) -> Phrase {
        var values: [String: any PhraseFilling] = [
            "guardian": guardian, "app": ask.appName, "id": ask.bundleIdentifier, "child": ask.child,
        ]
        // swift-format-ignore
        switch (ask.purpose, ask.guardianAction?.phrase) {
        case (.authorize, _): return Phrase("{guardian} allowed {app} ({id}) to manage {child}'s screen time", context: "event", values)
        case (.revoke, _): return Phrase("{guardian} allowed {app} ({id}) to stop managing {child}'s screen time", context: "event", values)
        case (.rules, nil): return Phrase("{guardian} allowed {app} ({id}) to change the rules", context: "event", values)
        case (.rules, let action?):
            values["action"] = action
            return Phrase("{guardian} allowed {app} ({id}) to {action}", context: "event", values)
        case (.loosen, _):
            values["reason"] = ask.reason ?? ""
            return Phrase("{guardian} allowed {app} ({id}) to lift some of {child}'s restrictions: {reason}", context: "event", values)
        case (.access, _):
            values["item"] = ask.item ?? ""
            return Phrase("{guardian} gave {child} access to {item} (shielded by {app}, {id})", context: "event", values)
        }
    }

    /// What the guardians' record says of an ask that was not approved, and why.
    private static func notApproved(_ ask: GuardianAsk, why: Phrase) -> Phrase {
        var values: [String: any PhraseFilling] = [
            "app": ask.appName, "id": ask.bundleIdentifier, "child": ask.child, "why": why,
        ]
        // swift-format-ignore
        switch (ask.purpose, ask.guardianAction?.phrase) {
        case (.authorize, _): return Phrase("{app} ({id}) was not allowed to manage {child}'s screen time: {why}", context: "event", values)
        case (.revoke, _): return Phrase("{app} ({id}) was not allowed to stop managing {child}'s screen time: {why}", context: "event", values)
        case (.rules, nil): return Phrase("{app} ({id}) was not allowed to change the rules: {why}", context: "event", values)
        case (.rules, let action?):
            values["action"] = action
            return Phrase("{app} ({id}) was not allowed to {action}: {why}", context: "event", values)
        case (.loosen, _):
            values["reason"] = ask.reason ?? ""
            return Phrase("{app} ({id}) was not allowed to lift some of {child}'s restrictions ({reason}): {why}", context: "event", values)
        case (.access, _):
            values["item"] = ask.item ?? ""
            return Phrase("{child} was not given access to {item} (shielded by {app}, {id}): {why}", context: "event", values)
        }
    }

    private static func clock(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm:ss"
        return formatter.string(from: date)
    }
}
