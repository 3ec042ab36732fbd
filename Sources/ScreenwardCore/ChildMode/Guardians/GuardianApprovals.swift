import Foundation
import ScreenwardIPC

/// What checking a guardian's password said (the daemon asks PAM, off its loop).
public enum PasswordCheck: Sendable, Equatable {
    case accepted
    case rejected
    /// The account cannot log in (locked, expired) or PAM failed: the message says why.
    case unusable(String)
}

/// The requests waiting for a guardian, on the daemon's loop: each is shown by an agent
/// of the managed user's session; the agent sends back the guardian's answer, whose
/// password is checked with PAM (off the loop, by `verify`) behind a limiter; the
/// outcome goes to whoever began the request. Passwords pass through and are dropped.
public final class GuardianApprovals {
    public enum Outcome: Sendable, Equatable {
        case approved(by: String)
        case notApproved(String)
    }

    /// How long a dialog may stay unanswered.
    public static let timeout: TimeInterval = 300

    public struct Services {
        /// The accounts that may approve, for the dialog's list.
        public var guardianNames: () -> [String]
        public var isGuardian: (String) -> Bool
        /// Shows `ask` on an agent of user `uid`'s session; false when none is attached.
        public var show: (_ uid: UInt32, GuardianAsk) -> Bool
        public var close: (_ uid: UInt32, _ ask: UInt64) -> Void
        /// Checks a password off the loop; calls back on the loop.
        public var verify: (_ user: String, _ password: String, _ done: @escaping (PasswordCheck) -> Void) -> Void
        public var record: (ChildEvent, _ uid: UInt32) -> Void
        public var now: () -> Date

        public init(
            guardianNames: @escaping () -> [String], isGuardian: @escaping (String) -> Bool, show: @escaping (UInt32, GuardianAsk) -> Bool,
            close: @escaping (UInt32, UInt64) -> Void, verify: @escaping (String, String, @escaping (PasswordCheck) -> Void) -> Void,
            record: @escaping (ChildEvent, UInt32) -> Void, now: @escaping () -> Date = { Date() }
        ) {
            self.guardianNames = guardianNames
            self.isGuardian = isGuardian
            self.show = show
            self.close = close
            self.verify = verify
            self.record = record
            self.now = now
        }
    }

    private struct Pending {
        var ask: GuardianAsk
        var uid: UInt32
        var requester: ServicePeer
        var began: Date
        var checking = false
        var decide: (Outcome) -> Void
    }

    private let services: Services
    private var pending: [UInt64: Pending] = [:]
    private var nextID: UInt64 = 1
    /// Keyed by guardian and by child: a child cycling through guardians' names gets no more tries.
    public private(set) var limiter: PasswordAttemptLimiter

    public init(services: Services, limiter: PasswordAttemptLimiter = PasswordAttemptLimiter()) {
        self.services = services
        self.limiter = limiter
    }

    public var pendingCount: Int { pending.count }

    /// Puts the question on the child's screen; `decide` is called once, with the outcome.
    /// Throws when no agent of the child's session can show it.
    public func begin(
        _ purpose: GuardianAsk.Purpose, app: InstalledApp, child: String, uid: UInt32, requester: ServicePeer, action: String? = nil,
        decide: @escaping (Outcome) -> Void
    ) throws {
        let guardians = services.guardianNames()
        var ask = GuardianAsk(
            id: nextID, purpose: purpose, appName: app.displayName, bundleIdentifier: app.bundleIdentifier, child: child, guardians: guardians)
        ask.action = action
        nextID += 1
        guard services.show(uid, ask) else {
            throw ServiceError(
                .unsupported, "no enforced desktop session of \(child) is running to ask a guardian in: try again from \(child)'s desktop session")
        }
        pending[ask.id] = Pending(ask: ask, uid: uid, requester: requester, began: services.now(), decide: decide)
    }

    /// The guardian's answer from the dialog of an agent of user `uid`; `reply` gets the
    /// verdict for the dialog (now, or once PAM has answered).
    public func answer(_ answer: GuardianAnswer, fromAgentOf uid: UInt32, reply: @escaping (GuardianVerdict) -> Void) {
        guard let entry = pending[answer.ask], entry.uid == uid else { return reply(.closed) }
        guard let guardian = answer.guardian, let password = answer.password else {
            finish(answer.ask, .notApproved("the dialog was cancelled in \(entry.ask.child)'s session"))
            return reply(.cancelled)
        }
        guard !entry.checking else { return reply(.tryAgain(message: "Still checking the last password…", notBefore: nil)) }
        let now = services.now()
        let childKey = "child:\(uid)"
        for key in [guardian, childKey] {
            if case .wait(let until) = limiter.check(key, now: now) {
                return reply(.tryAgain(message: "Too many wrong passwords. Try again at \(Self.clock(until)).", notBefore: until))
            }
        }
        guard services.isGuardian(guardian) else {
            // Not a guardian's account: counted like a wrong password, and no PAM call
            // (which would reveal nothing, but costs time and could lock the account).
            return reply(wrong(guardian: guardian, childKey: childKey, entry: entry, why: "\(guardian) is not a guardian"))
        }
        pending[answer.ask]?.checking = true
        services.verify(guardian, password) { [weak self] check in
            guard let self else { return }
            pending[answer.ask]?.checking = false
            guard let entry = pending[answer.ask] else { return reply(.closed) }
            switch check {
            case .accepted:
                limiter.recordSuccess(guardian)
                limiter.recordSuccess(childKey)
                finish(answer.ask, .approved(by: guardian))
                reply(.approved)
            case .rejected:
                reply(wrong(guardian: guardian, childKey: childKey, entry: entry, why: "a wrong password for \(guardian)"))
            case .unusable(let why):
                reply(wrong(guardian: guardian, childKey: childKey, entry: entry, why: "\(guardian)'s account cannot approve (\(why))"))
            }
        }
    }

    private func wrong(guardian: String, childKey: String, entry: Pending, why: String) -> GuardianVerdict {
        let now = services.now()
        let decisions = [limiter.recordFailure(guardian, now: now), limiter.recordFailure(childKey, now: now)]
        services.record(
            ChildEvent(at: now, kind: .notApproved, actor: entry.ask.child, detail: "\(entry.ask.appName) (\(entry.ask.bundleIdentifier)): \(why)"),
            entry.uid)
        let until = decisions.compactMap { decision -> Date? in if case .wait(let until) = decision { until } else { nil } }.max()
        if let until { return .tryAgain(message: "Wrong password. Too many tries: wait until \(Self.clock(until)).", notBefore: until) }
        return .tryAgain(message: "Wrong password. Try again.", notBefore: nil)
    }

    /// A new agent attached for user `uid` (the last one died or was killed, dialog and
    /// all): what is still waiting is shown again.
    public func agentAttached(uid: UInt32) {
        for entry in pending.values where entry.uid == uid { _ = services.show(uid, entry.ask) }
    }

    /// The app that asked is gone: its dialog comes down.
    public func requesterGone(_ peer: ServicePeer) {
        for (id, entry) in pending where entry.requester == peer {
            finish(id, .notApproved("\(entry.ask.appName) quit before a guardian answered"))
        }
    }

    /// Ends asks older than `timeout`; returns when the next one would expire.
    @discardableResult
    public func expire() -> Date? {
        let now = services.now()
        for (id, entry) in pending where now.timeIntervalSince(entry.began) >= Self.timeout {
            finish(id, .notApproved("nobody answered within \(Int(Self.timeout / 60)) minutes"))
        }
        return pending.values.map { $0.began.addingTimeInterval(Self.timeout) }.min()
    }

    private func finish(_ id: UInt64, _ outcome: Outcome) {
        guard let entry = pending.removeValue(forKey: id) else { return }
        services.close(entry.uid, id)
        let what =
            switch entry.ask.purpose {
            case .authorize: "to manage \(entry.ask.child)'s screen time"
            case .revoke: "to stop managing \(entry.ask.child)'s screen time"
            case .rules: "to \(entry.ask.action ?? "change the rules")"
            }
        switch outcome {
        case .approved(let guardian):
            services.record(
                ChildEvent(at: services.now(), kind: .approved, actor: guardian, detail: "\(guardian) allowed \(entry.ask.appName) (\(entry.ask.bundleIdentifier)) \(what)"),
                entry.uid)
        case .notApproved(let why):
            services.record(
                ChildEvent(at: services.now(), kind: .notApproved, actor: entry.ask.child, detail: "\(entry.ask.appName) (\(entry.ask.bundleIdentifier)) was not allowed \(what): \(why)"),
                entry.uid)
        }
        entry.decide(outcome)
    }

    private static func clock(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm:ss"
        return formatter.string(from: date)
    }
}
