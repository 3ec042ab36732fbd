import Foundation
import GLibRuntime
import Glibc
@_spi(Screenward) import ScreenwardCore
import ScreenwardIPC
import SystemAccounts

/// Every logind session of managed users, on the daemon's loop: follows logind, ends the
/// doors no agent can enforce (`SessionAdmission`: a console login, a Wayland session), hands
/// the console logins a guardian allowed to `consoles`, starts an agent for each active X11
/// session, attaches it, takes its reports, and carries out `AgentSupervision`'s decisions
/// (restart, lock, end).
final class ManagedSessions {
    private struct Tracked {
        var session: LogindSession
        var supervision = AgentSupervision()
        var process: Process?
        var peer: ServicePeer?
        var intervals: AgentIntervals?
        var deadline: MainLoop.Registration?
        /// What the last agent was counting when it dropped, for the next one.
        var handover: AgentIntervals.Handover?
        /// Whether the last agent got as far as attaching (a killed agent did; one that
        /// cannot start in this session did not).
        var lastAgentAttached = false
        /// Whether an agent failure was recorded since the last attach: one that keeps
        /// failing the same way (a cookie that is not one) is one event, not one a second.
        var failureRecorded = false
        /// When the daemon first saw the session enforceable.
        var since = Date()
        /// A Wayland session's compositor, as found and vetted for its agent: vetted again at
        /// each of the agent's alive reports.
        var compositor: SessionCompositor?
    }

    private let loop: MainLoop
    private let logind = LogindSessions()
    private let launcher: AgentLauncher
    private let state: DaemonState
    private let owner: (UInt32) -> ManagedUserOwner?
    private let log: DaemonLog
    /// A session's agent says whether the child is at the screen (not idle, not locked).
    var onPresence: ((_ uid: UInt32, _ present: Bool) -> Void)?
    /// Called when a managed user's focus changed (an interval opened or closed): the
    /// engine's predictions of threshold crossings hold only while the focus stays put.
    var onFocusChanged: ((_ uid: UInt32) -> Void)?
    /// Called after any usage an agent reported (a checkpoint too), or closed for it.
    var onUsage: ((_ uid: UInt32) -> Void)?
    /// An agent reported the shields it shows (the daemon starts their apps' data sources).
    var onCovered: ((_ uid: UInt32, _ covered: [CoveredWindow]) -> Void)?
    /// An agent asks about the processes of windows it does not know.
    var onClients: ((_ uid: UInt32, _ pids: [Int32]) -> Void)?
    /// An agent saw its session's window manager go away.
    var onWindowManagerGone: ((_ uid: UInt32) -> Void)?
    /// An agent names the processes of shielded apps that have no window on its display.
    var onHeldElsewhere: ((_ uid: UInt32, _ pids: [Int32]) -> Void)?
    /// An agent asks to end a covered process (a shield's Close).
    var onCloseProgram: ((_ uid: UInt32, _ pid: Int32) -> Void)?
    /// An app's activity picker ended (`picker.present`).
    var onPickerClosed: ((_ uid: UInt32, PickerClosed) -> Void)?
    /// An app's report window closed (`report.present`).
    var onReportClosed: ((_ uid: UInt32, ReportClosed) -> Void)?
    /// An agent drew an app's label, or says why not (`label.show`).
    var onLabelShown: ((_ uid: UInt32, LabelShown) -> Void)?
    /// An agent put back a shield someone tampered with.
    var onShieldTampered: ((_ uid: UInt32, _ tampering: AgentShieldTampered) -> Void)?
    var onUnsupportedBrowser: ((_ uid: UInt32, _ browser: AgentUnsupportedBrowser) -> Void)?
    /// Stores the daemon adds to a user's own (the programs the system did not install).
    var extraStores: ((_ uid: UInt32) -> [StoreSettings])? {
        didSet { consoles.extraStores = extraStores }
    }
    /// Whether a guardian allowed the user's console logins.
    var consoleAllowed: ((_ uid: UInt32) -> Bool)?
    /// The console logins a guardian allowed, counted as the app Console.
    let consoles: ManagedConsoles
    private var tracked: [SessionID: Tracked] = [:]
    /// The sessions ended as doors no agent enforces: each is ended and recorded once.
    private var ended: Set<SessionID> = []
    /// Those of them logind refused to end (asked again whenever logind says something of them).
    private var refusedEnds: Set<SessionID> = []
    /// Why a session of each managed user was last ended, until their next enforced session
    /// tells them (`onDoorClosed`).
    private var closedDoors: [UInt32: Set<SessionAdmission.Door>] = [:]
    /// A managed user's agent attached after a session of theirs was ended: tell them why.
    var onDoorClosed: ((_ uid: UInt32, _ door: SessionAdmission.Door) -> Void)?
    /// Agents' exits, from their watcher threads.
    private var exits: LoopMailbox<ProcessExit>!
    private static let idleThreshold: Double = 120
    /// How long a new session may have no X authority yet: a display manager opens the logind
    /// session first and writes the cookie a moment later (LightDM, measured in the booted
    /// desktop). Meanwhile the agent is started again every tenth of a second, with no failure
    /// counted or recorded.
    private static let authorityGrace: TimeInterval = 5
    /// How long a new Wayland session may have no compositor listening yet (a desktop's
    /// compositor starts a moment after logind opens the session; a slow disk makes it longer).
    private static let compositorGrace: TimeInterval = 10

    private struct ProcessExit: Sendable {
        var session: SessionID
        var pid: Int32
        var status: Int32
    }

    init(
        loop: MainLoop, launcher: AgentLauncher, state: DaemonState, owner: @escaping (UInt32) -> ManagedUserOwner?,
        log: DaemonLog
    ) {
        self.loop = loop
        self.launcher = launcher
        self.state = state
        self.owner = owner
        self.log = log
        consoles = ManagedConsoles(loop: loop, state: state, owner: owner, log: log) { [logind] id in
            try logind.terminateSession(id)
        }
    }

    /// On the loop's thread, before it runs.
    func start() {
        exits = LoopMailbox { [unowned self] exits in
            for exit in exits { agentExited(exit) }
        }
        do {
            try logind.start { [unowned self] change in
                switch change {
                case .added(let session), .changed(let session, _): reconsider(session)
                case .removed(let session):
                    consoles.stop(session.id, reason: "the session ended")
                    ended.remove(session.id)
                    refusedEnds.remove(session.id)
                    forget(session.id, reason: "the session ended")
                }
            }
            log.info("following logind's sessions: \(logind.sessions.count) now")
        } catch {
            log.error("cannot follow logind's sessions (\(error)): no managed session is enforced")
        }
    }

    /// The daemon stops: each agent ends with it (their usage is saved by the owners).
    func stopAll() {
        for id in Array(tracked.keys) { forget(id, reason: "the daemon stops") }
        consoles.stopAll()
        logind.stop()
    }

    /// A user became or stopped being managed.
    func managedUsersChanged() {
        for session in logind.sessions.values { reconsider(session) }
    }

    // MARK: Sessions

    private func reconsider(_ session: LogindSession) {
        guard owner(session.uid) != nil, session.state != .closing else {
            consoles.stop(session.id, reason: "not an open session of a managed user")
            return forget(session.id, reason: "not an open session of a managed user")
        }
        let admission = SessionAdmission.decide(
            SessionAdmission.Session(
                type: session.type.description, sessionClass: session.sessionClass, service: session.service,
                isRemote: session.isRemote),
            consoleAllowed: consoleAllowed?(session.uid) ?? false)
        if admission != .countAsConsole { consoles.stop(session.id, reason: "its console is no longer allowed") }
        switch admission {
        case .countAsConsole:
            forget(session.id, reason: "an allowed console")
            return consoles.follow(session)
        case .leave:
            return forget(session.id, reason: "not the managed user's own (class \(session.sessionClass))")
        case .end(let door):
            forget(session.id, reason: "a \(door.rawValue) session is ended")
            return end(session, through: door)
        case .enforce:
            guard session.isActive else { return forget(session.id, reason: "not in the foreground of its seat") }
        }
        if tracked[session.id] != nil {
            tracked[session.id]?.session = session
            return
        }
        tracked[session.id] = Tracked(session: session)
        log.info("session \(session.id) of \(session.userName) on \(session.display): starting its agent")
        let actions = tracked[session.id]!.supervision.sessionActivated(at: Date())
        perform(actions, for: session.id)
    }

    /// A session logind was told to end and still lists (closing) after half a second has a
    /// process that outlived SIGTERM (one that ignores it, or one started while the first
    /// signal was sent): every process of the session is killed. A refused door has nothing
    /// to save.
    private func killIfStillThere(_ id: SessionID) {
        _ = loop.schedule(after: .milliseconds(500)) { [weak self] in
            guard let self, logind.sessions[id] != nil else { return }
            do {
                try logind.killSession(id, signal: SIGKILL)
                log.info("session \(id): still there 0.5 s after it was ended: its processes were killed")
            } catch {
                log.error("session \(id): still there 0.5 s after it was ended, and cannot be killed: \(error)")
            }
        }
    }

    /// Ends a Wayland session no agent can serve (its compositor is not one an agent follows,
    /// was refused, or never came), and records why.
    private func endUnservable(_ session: LogindSession, _ why: Phrase) {
        forget(session.id, reason: "a Wayland session no agent can serve")
        let how = session.service.isEmpty ? "-" : session.service
        let values: [String: any PhraseFilling] = ["session": "\(session.id)", "how": how, "why": why]
        // swift-format-ignore
        end(session, through: .wayland, because: Phrase("a Wayland session was ended (session {session}, {how}): {why}", context: "event", values))
    }

    /// A debugger of the child's that attached to their compositor after it was vetted (with
    /// `kernel.yama.ptrace_scope` below 2) could change what it reports or draws: its session is
    /// ended at the agent's next alive report, within a second.
    private func vetCompositorAgain(of id: SessionID) {
        guard let entry = tracked[id], let compositor = entry.compositor,
            let refusal = ProcessVetting().compositor(compositor, uid: entry.session.uid)
        else { return }
        // swift-format-ignore
        endUnservable(entry.session, Phrase("its compositor was refused: {reason}", context: "event", ["reason": refusal.description]))
    }

    /// The compositors of the user's Wayland sessions: their display servers, not the child's
    /// own (`DisplayServers` closes those).
    func sessionCompositors(of uid: UInt32) -> Set<Int32> {
        var found: Set<Int32> = []
        for session in logind.sessions.values where session.uid == uid && session.type == .wayland {
            if case .success(let compositor) = SessionCompositor.find(
                leader: Int32(bitPattern: session.leaderPID), uid: uid)
            {
                found.insert(compositor.pid)
            }
        }
        return found
    }

    /// Ends a door no agent can enforce, at once, and records it once.
    private func end(_ session: LogindSession, through door: SessionAdmission.Door) {
        let how = session.tty.isEmpty ? session.service : "\(session.service), \(session.tty)"
        let values = ["session": "\(session.id)", "how": how.isEmpty ? "-" : how]
        // swift-format-ignore
        let mir = Phrase("a Mir session was ended (session {session}, {how}): only X11 and Wayland sessions can be enforced", context: "event", values)
        // swift-format-ignore
        let console = Phrase("a console login was ended (session {session}, {how}): a managed user logs in on the desktop only", context: "event", values)
        end(session, through: door, because: door == .wayland ? mir : console)
    }

    /// Ends the session, records `what` once, and asks again at each news of it if logind refused.
    private func end(_ session: LogindSession, through door: SessionAdmission.Door, because what: Phrase) {
        guard ended.insert(session.id).inserted else {
            // Refused before: asked again at each news of it, recorded once.
            if refusedEnds.contains(session.id), (try? logind.terminateSession(session.id)) != nil {
                refusedEnds.remove(session.id)
                log.info("session \(session.id): ended, asked again")
            }
            return
        }
        closedDoors[session.uid, default: []].insert(door)
        do {
            try logind.terminateSession(session.id)
            killIfStillThere(session.id)
            record(.sessionEnded, what, uid: session.uid)
        } catch {
            refusedEnds.insert(session.id)
            record(
                .sessionEnded,
                Phrase(
                    "session {session} should have been ended but logind refused: {error}", context: "event",
                    ["session": "\(session.id)", "error": "\(error)"]), uid: session.uid)
        }
    }

    private func forget(_ id: SessionID, reason: String) {
        guard let entry = tracked.removeValue(forKey: id) else { return }
        entry.deadline?.cancel()
        entry.intervals?.agentGone(at: .now)
        if let process = entry.process, process.isRunning { kill(process.processIdentifier, SIGTERM) }
        log.info("session \(id): no longer enforced (\(reason))")
    }

    // MARK: Supervision

    private func perform(_ actions: [AgentSupervision.Action], for id: SessionID) {
        for action in actions {
            guard let entry = tracked[id] else { return }
            switch action {
            case .startAgent:
                if entry.supervision.failures.count >= AgentSupervision.failuresBeforeLock, !entry.lastAgentAttached {
                    // Failing to start again and again: a second between tries, not a busy
                    // loop. (An agent that ran and was killed is replaced at once.)
                    _ = loop.schedule(after: .seconds(1)) { [weak self] in
                        guard let self, tracked[id] != nil, tracked[id]?.process == nil else { return }
                        launch(id)
                    }
                } else {
                    launch(id)
                }
            case .replaceAgent:
                if let process = entry.process { kill(process.processIdentifier, SIGKILL) }
                tracked[id]?.process = nil
                agentGone(id)
                tracked[id]?.peer = nil
                recordFailure(
                    Phrase(
                        "the agent of session {session} stopped reporting; it was replaced", context: "event",
                        ["session": "\(id)"]), session: id)
                launch(id)
            case .lockSession:
                do {
                    try logind.lockSession(id)
                    record(
                        .sessionLocked,
                        Phrase(
                            "session {session} was locked: its agent could not be kept running", context: "event",
                            ["session": "\(id)"]), uid: entry.session.uid)
                } catch {
                    record(
                        .sessionLocked,
                        Phrase(
                            "session {session} should have been locked but logind refused: {error}", context: "event",
                            ["session": "\(id)", "error": "\(error)"]), uid: entry.session.uid)
                }
            case .terminateSession:
                do {
                    try logind.terminateSession(id)
                    record(
                        .sessionEnded,
                        Phrase(
                            "session {session} was ended: it stayed unenforced 30 s after the lock", context: "event",
                            ["session": "\(id)"]), uid: entry.session.uid)
                } catch {
                    record(
                        .sessionEnded,
                        Phrase(
                            "session {session} should have been ended but logind refused: {error}", context: "event",
                            ["session": "\(id)", "error": "\(error)"]), uid: entry.session.uid)
                }
            }
        }
        armDeadline(id)
    }

    /// Locks every session of `uid` now (a guardian asked); returns how many logind locked.
    func lockSessions(of uid: UInt32, by actor: String) -> Int {
        var locked = 0
        for (id, entry) in tracked where entry.session.uid == uid {
            do {
                try logind.lockSession(id)
                locked += 1
                let what = Phrase(
                    "{guardian} locked session {session}", context: "event", ["guardian": actor, "session": "\(id)"])
                record(.sessionLocked, what, uid: uid)
            } catch {
                let values = ["guardian": actor, "session": "\(id)", "error": "\(error)"]
                // swift-format-ignore
                let what = Phrase("{guardian} asked to lock session {session}, but logind refused: {error}", context: "event", values)
                record(.sessionLocked, what, uid: uid)
            }
        }
        return locked
    }

    private func launch(_ id: SessionID) {
        guard let entry = tracked[id] else { return }
        let session = entry.session
        do {
            guard let account = try UnixAccount.withID(UserID(rawValue: session.uid)) else {
                throw AgentLauncher.LaunchError.failed("uid \(session.uid) has no account")
            }
            let exits = exits!
            let compositor = session.type == .wayland ? try launcher.reachCompositor(of: session) : nil
            tracked[id]?.compositor = compositor
            let process = try launcher.launch(
                for: session, user: SessionUser(uid: session.uid, gid: account.gid.rawValue, home: account.home),
                compositor: compositor
            ) { pid, status in
                exits.post(ProcessExit(session: id, pid: pid, status: status))
            }
            tracked[id]?.process = process
            tracked[id]?.lastAgentAttached = false
            tracked[id]?.supervision.agentStarted(at: Date())
            log.info("session \(id): agent started (pid \(process.processIdentifier))")
        } catch AgentLauncher.LaunchError.noAuthority where Date().timeIntervalSince(entry.since) < Self.authorityGrace
        {
            log.debug("session \(id): no X authority yet; the agent starts as soon as there is one")
            _ = loop.schedule(after: .milliseconds(100)) { [weak self] in
                guard let self, tracked[id] != nil, tracked[id]?.process == nil else { return }
                launch(id)
            }
        } catch AgentLauncher.LaunchError.noCompositor(_, let missing) {
            guard Date().timeIntervalSince(entry.since) < Self.compositorGrace else {
                // swift-format-ignore
                return endUnservable(session, Phrase("no compositor came within {seconds} s ({missing})", context: "event", ["seconds": "\(Int(Self.compositorGrace))", "missing": "\(missing)"]))
            }
            log.debug("session \(id): \(missing); the agent starts as soon as it listens")
            _ = loop.schedule(after: .milliseconds(100)) { [weak self] in
                guard let self, tracked[id] != nil, tracked[id]?.process == nil else { return }
                launch(id)
            }
        } catch AgentLauncher.LaunchError.unservable(_, let why) {
            endUnservable(session, why)
        } catch {
            recordFailure(
                Phrase(
                    "the agent of session {session} could not be started: {error}", context: "event",
                    ["session": "\(id)", "error": "\(error)"]), session: id)
            // Counted as a failure; the next try waits a second, so a lasting cause
            // (no X authority) locks the session after three instead of spinning.
            let actions = tracked[id]?.supervision.agentEnded(at: Date()) ?? []
            _ = loop.schedule(after: .seconds(1)) { [weak self] in
                guard let self, tracked[id] != nil else { return }
                perform(actions, for: id)
            }
        }
    }

    private func agentExited(_ exit: ProcessExit) {
        let id = exit.session
        guard let entry = tracked[id], entry.process?.processIdentifier == exit.pid else { return }
        tracked[id]?.process = nil
        agentGone(id)
        if exit.status == AgentLinkMethods.displayRefusedStatus,
            Date().timeIntervalSince(entry.since) < Self.authorityGrace
        {
            // A new session's X server turned the agent away: the cookie read was the last
            // boot's or login's, and the display manager writes this one's a moment later.
            log.debug("session \(id): its X server refused the agent's cookie; starting it again")
            _ = loop.schedule(after: .milliseconds(100)) { [weak self] in
                guard let self, tracked[id] != nil, tracked[id]?.process == nil else { return }
                launch(id)
            }
            return
        }
        log.info("session \(id): its agent ended (status \(exit.status)); starting another")
        let what = Phrase(
            "the agent of session {session} ended (status {status}); starting another", context: "event",
            ["session": "\(id)", "status": "\(exit.status)"])
        // Replaced at once; recorded a second later, if the session is still there: at a
        // logout the agent's display goes first, and logind says the session ended just after.
        _ = loop.schedule(after: .seconds(1)) { [weak self] in
            guard let self else { return }
            guard tracked[id] != nil else { return log.info("\(what) (as its session ended: not recorded)") }
            recordFailure(what, session: id)
        }
        perform(tracked[id]!.supervision.agentEnded(at: Date()), for: id)
    }

    private func armDeadline(_ id: SessionID) {
        tracked[id]?.deadline?.cancel()
        guard let deadline = tracked[id]?.supervision.nextDeadline() else { return }
        let delay = max(0, deadline.timeIntervalSinceNow)
        tracked[id]?.deadline = loop.schedule(after: .milliseconds(Int64(delay * 1000) + 1)) { [weak self] in
            guard let self, tracked[id] != nil else { return }
            perform(tracked[id]!.supervision.check(at: Date()), for: id)
        }
    }

    /// An agent failure goes to the child's events once until an agent attaches again; the
    /// repeats are logged only (the lock and the end that may follow are recorded).
    private func recordFailure(_ what: Phrase, session id: SessionID) {
        guard let entry = tracked[id] else { return }
        guard !entry.failureRecorded else {
            return log.info("\(what) (again; recorded once until an agent attaches)")
        }
        tracked[id]?.failureRecorded = true
        record(.agentFailed, what, uid: entry.session.uid)
    }

    private func record(_ kind: ChildEvent.Kind, _ what: Phrase, uid: UInt32) {
        log.info("\(what)")
        do {
            try state.record(ChildEvent(at: Date(), kind: kind, actor: "screenward-daemon", phrase: what), uid: uid)
        } catch {
            log.error("could not record an event (\(error)): \(what)")
        }
    }

    // MARK: The agents' link

    /// An agent asks to be attached: only the process started for that session, as
    /// the agents' user, may.
    func attach(_ request: AgentAttach, from peer: ServicePeer) throws -> AgentAttachment {
        let id = SessionID(request.session)
        guard let credentials = peer.credentials, credentials.uid == launcher.agentAccount.uid,
            let entry = tracked[id], let process = entry.process, process.processIdentifier == credentials.pid
        else {
            log.warning("\(peer) tried to attach as the agent of session \(request.session): refused")
            throw ServiceError(
                .unauthorized,
                Phrase(
                    "only the agent the daemon started for session {session} may attach", context: "daemon",
                    ["session": request.session]))
        }
        guard let owner = owner(entry.session.uid) else {
            throw ServiceError(
                .unauthorized,
                Phrase("session {session}'s user is no longer managed", context: "daemon", ["session": "\(id)"]))
        }
        let log = log
        tracked[id]?.peer = peer
        tracked[id]?.lastAgentAttached = true
        tracked[id]?.failureRecorded = false
        tracked[id]?.intervals = owner.intervals(continuing: entry.handover) { problem in
            log.warning("session \(id): \(problem)")
        }
        tracked[id]?.handover = nil
        let doors = closedDoors.removeValue(forKey: entry.session.uid) ?? []
        for door in doors.sorted(by: { $0.rawValue < $1.rawValue }) { onDoorClosed?(entry.session.uid, door) }
        // Attached is not yet enforcing: its first report (once its shields are up) is.
        log.info("session \(id): agent attached (pid \(credentials.pid))")
        let language: String?
        do {
            language = try state.sessionLanguage(uid: owner.user.uid)
        } catch {
            log.warning("session \(id): its language cannot be read (\(error)); the agent keeps its own")
            language = nil
        }
        return AgentAttachment(
            user: owner.user.name, uid: owner.user.uid, deviceSecret: owner.secret.bytes,
            idleThresholdSeconds: Self.idleThreshold, language: language)
    }

    /// `uid`'s session speaks `language` now (its tray said so): their agents shield in it.
    func languageChanged(uid: UInt32, to language: String) {
        guard let frame = try? AgentLinkMethods.language.frame(SpokenLanguage(language: language)) else { return }
        for peer in agents(of: uid) { peer.send(frame) }
    }

    /// After the attach reply: the shields that count now.
    func sendShields(to peer: ServicePeer) {
        guard let entry = tracked.values.first(where: { $0.peer == peer }), let owner = owner(entry.session.uid),
            let frame = try? AgentLinkMethods.shields.frame(owner.stores + (extraStores?(entry.session.uid) ?? []))
        else { return }
        peer.send(frame)
    }

    /// A managed user's stores changed: their agents cover accordingly, and an allowed console
    /// of theirs ends if Console is shielded now.
    func shieldsChanged(uid: UInt32) {
        consoles.shieldsChanged(uid: uid)
        for entry in tracked.values where entry.session.uid == uid {
            if let peer = entry.peer { sendShields(to: peer) }
        }
    }

    /// A report from an attached agent (anything else from a peer is ignored and logged).
    func received(push kind: String, frame: Data, from peer: ServicePeer) {
        guard let id = tracked.first(where: { $0.value.peer == peer })?.key else {
            log.warning("\(peer) sent \(kind) without being an attached agent: ignored")
            return
        }
        tracked[id]?.supervision.agentReported(at: Date())
        var report = AgentReport(session: id, uid: tracked[id]?.session.uid)
        do {
            try Self.reports.deliver(frame, kind: kind, to: self, &report)
        } catch {
            log.warning("session \(id)'s agent sent \(kind): \(error)")
        }
        armDeadline(id)
    }

    /// Which session's agent sent a report.
    struct AgentReport {
        let session: SessionID
        let uid: UInt32?
    }

    /// What an attached agent reports, and who is told.
    static let reports = PushRoutes<ManagedSessions, AgentReport>([
        .on(AgentLinkMethods.usage) { sessions, report, usage in
            sessions.tracked[report.session]?.intervals?.apply(usage, at: .now)
            if case .checkpointed = usage {} else if let uid = report.uid { sessions.onFocusChanged?(uid) }
            if let uid = report.uid { sessions.onUsage?(uid) }
        },
        .on(AgentLinkMethods.presence) { sessions, report, presence in
            if let uid = report.uid { sessions.onPresence?(uid, presence.present) }
        },
        .on(AgentLinkMethods.alive) { sessions, report, _ in sessions.vetCompositorAgain(of: report.session) },
        .on(AgentLinkMethods.covered) { sessions, report, covered in
            let stores = Set(covered.map(\.store)).sorted().joined(separator: ", ")
            sessions.log.debug(
                "session \(report.session): \(covered.count) window(s) covered\(stores.isEmpty ? "" : " (\(stores))")")
            if let uid = report.uid { sessions.onCovered?(uid, covered) }
        },
        .on(AgentLinkMethods.clients) { sessions, report, pids in
            if let uid = report.uid { sessions.onClients?(uid, pids) }
        },
        .on(AgentLinkMethods.windowManagerGone) { sessions, report, _ in
            sessions.unlessItEnds(report) { uid in sessions.onWindowManagerGone?(uid) }
        },
        .on(AgentLinkMethods.heldElsewhere) { sessions, report, pids in
            if let uid = report.uid { sessions.onHeldElsewhere?(uid, pids) }
        },
        .on(AgentLinkMethods.shieldTampered) { sessions, report, tampering in
            sessions.unlessItEnds(report) { uid in sessions.onShieldTampered?(uid, tampering) }
        },
        .on(AgentLinkMethods.unsupportedBrowser) { sessions, report, browser in
            if let uid = report.uid { sessions.onUnsupportedBrowser?(uid, browser) }
        },
        .on(AgentLinkMethods.closeProgram) { sessions, report, close in
            if let uid = report.uid { sessions.onCloseProgram?(uid, close.pid) }
        },
        .on(AgentLinkMethods.pickerClosed) { sessions, report, closed in
            if let uid = report.uid { sessions.onPickerClosed?(uid, closed) }
        },
        .on(AgentLinkMethods.reportClosed) { sessions, report, closed in
            if let uid = report.uid { sessions.onReportClosed?(uid, closed) }
        },
        .on(AgentLinkMethods.labelShown) { sessions, report, shown in
            if let uid = report.uid { sessions.onLabelShown?(uid, shown) }
        },
    ])

    /// What an agent says of its session's windows (the window manager gone, a shield
    /// tampered with) goes to the child's events a second later, if the session is still
    /// there: at a logout the window manager and the shields go first, and logind says the
    /// session ended just after.
    private func unlessItEnds(_ report: AgentReport, _ record: @escaping (UInt32) -> Void) {
        guard let uid = report.uid else { return }
        let id = report.session
        _ = loop.schedule(after: .seconds(1)) { [weak self] in
            guard let self else { return }
            guard tracked[id] != nil else {
                return log.info("session \(id): its agent's word on its windows as it ended: not recorded")
            }
            record(uid)
        }
    }

    // MARK: Guardians' dialogs

    /// The managed user whose session's attached agent `peer` is.
    func agentUser(_ peer: ServicePeer) -> UInt32? {
        tracked.values.first(where: { $0.peer == peer })?.session.uid
    }

    /// The attached agents of `uid`'s sessions.
    func agents(of uid: UInt32) -> [ServicePeer] {
        tracked.values.filter { $0.session.uid == uid }.compactMap(\.peer)
    }

    /// Shows `ask` on an attached agent of `uid`'s sessions (the active one first).
    func show(_ ask: GuardianAsk, uid: UInt32) -> Bool {
        let candidates = tracked.values.filter { $0.session.uid == uid && $0.peer != nil }.sorted {
            $0.session.isActive && !$1.session.isActive
        }
        guard let peer = candidates.first?.peer, let frame = try? AgentLinkMethods.askGuardian.frame(ask) else {
            return false
        }
        log.debug("asking a guardian through \(peer): \(ask.question)")
        peer.send(frame)
        return true
    }

    /// Tells an attached agent of `uid`'s sessions (the active one first) to show an app's
    /// picker or report; returns that agent, nil when no session has one.
    func sendToAgent<Body>(_ kind: PushKind<Body>, _ body: Body, uid: UInt32) -> ServicePeer? {
        let candidates = tracked.values.filter { $0.session.uid == uid && $0.peer != nil }.sorted {
            $0.session.isActive && !$1.session.isActive
        }
        guard let peer = candidates.first?.peer, let frame = try? kind.frame(body) else { return nil }
        log.debug("\(kind.name) through \(peer)")
        peer.send(frame)
        return peer
    }

    func closeAsk(_ ask: UInt64, uid: UInt32) {
        guard let frame = try? AgentLinkMethods.closeAsk.frame(GuardianAskClosed(ask: ask)) else { return }
        for entry in tracked.values where entry.session.uid == uid { entry.peer?.send(frame) }
    }

    /// A connection ended: if it was an agent's, what it had open ends now.
    func disconnected(_ peer: ServicePeer) {
        guard let id = tracked.first(where: { $0.value.peer == peer })?.key else { return }
        agentGone(id)
    }

    /// The session's agent is gone (its connection dropped, it exited, it was replaced):
    /// what it had open ends now, and its successor may continue the interval.
    private func agentGone(_ id: SessionID) {
        if let handover = tracked[id]?.intervals?.agentGone(at: .now) { tracked[id]?.handover = handover }
        tracked[id]?.intervals = nil
        tracked[id]?.peer = nil
    }
}
