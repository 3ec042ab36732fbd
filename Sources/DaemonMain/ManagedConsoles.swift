import Foundation
import GLibRuntime
import ScreenwardCore
import ScreenwardIPC
import SystemAccounts

/// The console logins a guardian allowed (`screenward child console allow CHILD`), on the
/// daemon's loop: each is the app Console in its user's usage, counted while its terminal is
/// used (`ConsoleUse`), and ended, after a line on its terminal, as soon as Console is
/// shielded (a limit used up, a downtime). `ManagedSessions` says which logins these are.
final class ManagedConsoles {
    private struct Followed {
        var session: LogindSession
        var use: ConsoleUse
        var intervals: AgentIntervals
        /// The interval open now, as `intervals` numbers them.
        var interval: Int64?
        /// Asked to end (once: logind's removal follows).
        var ending = false
        /// logind refused to end it: recorded once, asked again at each poll.
        var refusalRecorded = false
    }

    private let loop: MainLoop
    private let state: DaemonState
    private let owner: (UInt32) -> ManagedUserOwner?
    private let log: DaemonLog
    /// Ends a login; says whether logind did.
    private let terminate: (SessionID) throws -> Void
    private var followed: [SessionID: Followed] = [:]
    private var nextInterval: Int64 = 1
    private var timer: MainLoop.Registration?
    /// Stores the daemon adds to a user's own (the programs the system did not install).
    var extraStores: ((_ uid: UInt32) -> [StoreSettings])?
    /// Called after any usage written for a console: the engine's predictions hold only while
    /// what counts stays put.
    var onUsage: ((_ uid: UInt32) -> Void)?
    static let idleThreshold: TimeInterval = 120
    /// How often each terminal's times are read: they move in steps of 8 s, so a second is
    /// finer than they tell; a limit is met within it.
    static let pollInterval: Duration = .seconds(1)

    init(
        loop: MainLoop, state: DaemonState, owner: @escaping (UInt32) -> ManagedUserOwner?, log: DaemonLog,
        terminate: @escaping (SessionID) throws -> Void
    ) {
        self.loop = loop
        self.state = state
        self.owner = owner
        self.log = log
        self.terminate = terminate
    }

    /// An allowed console login of a managed user (new, or changed).
    func follow(_ session: LogindSession) {
        if followed[session.id] != nil {
            followed[session.id]?.session = session
            return
        }
        guard let owner = owner(session.uid) else { return }
        let log = log
        let intervals = owner.intervals(continuing: nil) { problem in log.warning("session \(session.id): \(problem)") }
        followed[session.id] = Followed(
            session: session, use: ConsoleUse(since: Date(), idleThreshold: Self.idleThreshold), intervals: intervals)
        log.info(
            "session \(session.id) of \(session.userName) (\(session.service), "
                + "\(session.tty.isEmpty ? "no terminal" : session.tty)): an allowed console, counted as Console")
        poll(session.id)
        schedule()
    }

    /// The login ended, or is no longer an allowed console: what it counted is closed.
    func stop(_ id: SessionID, reason: String) {
        guard var entry = followed.removeValue(forKey: id) else { return }
        write(
            entry.use.end(lastActivity: lastActivity(of: entry.session), now: Date()), to: &entry,
            closing: .agentStopped)
        log.info("session \(id): no longer counted as Console (\(reason))")
        if followed.isEmpty {
            timer?.cancel()
            timer = nil
        }
    }

    func stopAll() {
        for id in Array(followed.keys) { stop(id, reason: "the daemon stops") }
    }

    /// `uid`'s shields changed: a console of theirs ends at once if Console is shielded now.
    func shieldsChanged(uid: UInt32) {
        for (id, entry) in followed where entry.session.uid == uid { endIfShielded(id) }
    }

    // MARK: Counting

    private func schedule() {
        guard timer == nil, !followed.isEmpty else { return }
        timer = loop.schedule(after: Self.pollInterval) { [weak self] in
            guard let self else { return }
            timer = nil
            for id in Array(followed.keys) { poll(id) }
            schedule()
        }
    }

    private func poll(_ id: SessionID) {
        guard var entry = followed[id] else { return }
        write(entry.use.observe(lastActivity: lastActivity(of: entry.session), now: Date()), to: &entry, closing: .idle)
        followed[id] = entry
        endIfShielded(id)
    }

    /// The terminal's last use; nil for a login without one (it counts while open).
    private func lastActivity(of session: LogindSession) -> Date? {
        guard let path = Self.terminalPath(session.tty) else { return nil }
        // A terminal that cannot be read any more (closed) was last used when it was.
        return Terminals.lastActivity(of: path) ?? .distantPast
    }

    /// `/dev/` and logind's `TTY` (`tty2`, `pts/3`); nil for none, or one that is no name of a
    /// terminal.
    static func terminalPath(_ tty: String) -> String? {
        guard !tty.isEmpty, !tty.contains(".."), !tty.hasPrefix("/") else { return nil }
        return "/dev/" + tty
    }

    private func write(_ steps: [ConsoleUse.Step], to entry: inout Followed, closing reason: IntervalEndReason) {
        guard !steps.isEmpty else { return }
        let owner = owner(entry.session.uid)
        for step in steps {
            switch step {
            case .open(let start):
                guard let owner else { continue }
                let interval = nextInterval
                nextInterval += 1
                entry.interval = interval
                let identity = ConsoleApplication.identity
                entry.intervals.apply(
                    .opened(
                        interval: interval, app: identity,
                        token: TokenMinter(secret: owner.secret).applicationToken(for: identity), start: start),
                    at: .now)
            case .checkpoint(let seconds):
                guard let interval = entry.interval else { continue }
                entry.intervals.apply(.checkpointed(interval: interval, duration: .seconds(seconds)), at: .now)
            case .close(let seconds):
                guard let interval = entry.interval else { continue }
                entry.interval = nil
                entry.intervals.apply(
                    .closed(interval: interval, duration: .seconds(seconds), reason: reason), at: .now)
            }
        }
        onUsage?(entry.session.uid)
    }

    // MARK: Ending

    private func endIfShielded(_ id: SessionID) {
        guard let entry = followed[id], !entry.ending, let owner = owner(entry.session.uid),
            let decision = owner.shieldDecision(
                for: ConsoleApplication.identity, with: extraStores?(entry.session.uid) ?? [])
        else { return }
        followed[id]?.ending = true
        let session = entry.session
        let speak = Translations.forLanguage(state.languageToSpeak(uid: session.uid))
        // swift-format-ignore
        let told = Phrase("Console is shielded now, so this login ends. A guardian can give you more time.", context: "terminal")
        if let path = Self.terminalPath(session.tty) { Terminals.write("\r\nscreenward: \(speak(told))\r\n", to: path) }
        let how = session.tty.isEmpty ? session.service : "\(session.service), \(session.tty)"
        let values = ["session": "\(id)", "how": how, "owner": decision.owner, "store": decision.store]
        do {
            try terminate(id)
            // swift-format-ignore
            record(Phrase("a console login was ended (session {session}, {how}): Console is shielded by {owner}'s store {store}", context: "event", values), uid: session.uid)
        } catch {
            followed[id]?.ending = false
            guard !entry.refusalRecorded else { return log.info("session \(id): logind refused to end it again") }
            followed[id]?.refusalRecorded = true
            // swift-format-ignore
            let refused = Phrase("session {session} should have been ended but logind refused: {error}", context: "event", ["session": "\(id)", "error": "\(error)"])
            record(refused, uid: session.uid)
        }
    }

    private func record(_ what: Phrase, uid: UInt32) {
        log.info("\(what)")
        do {
            try state.record(
                ChildEvent(at: Date(), kind: .sessionEnded, actor: "screenward-daemon", phrase: what), uid: uid)
        } catch {
            log.error("could not record an event (\(error)): \(what)")
        }
    }
}
