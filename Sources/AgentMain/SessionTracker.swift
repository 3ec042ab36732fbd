import Foundation
import GLibRuntime
import ScreenwardCore
import X11Session

/// What both agents do with the session's own events, on the loop: the focus, presence (input,
/// motion in the focused window, the screen saver held off or blanked), logind's lock and
/// suspend, the accountant and its one-second checkpoints, and the website the focused window
/// shows. A person's agent and a managed session's differ only in where
/// the usage goes (the sink: the owner's live usage, or reports to the daemon), in what
/// counts for a window (`counted`), and in whether logind's lock is believed.
final class SessionTracker {
    /// Whether logind's word that the session is locked stops the count. A person's own
    /// session: yes. A child's: no, since LockedHint is the session owner's to set and the
    /// child could stop the count while playing; a locked screen takes no input, so the X
    /// server's idle time stops it instead. Suspend is the machine's, and always believed.
    enum LockSource {
        case logindAndIdle
        case idleOnly
    }

    let accountant: UsageAccountant
    private let connection: XConnection
    private let loop: MainLoop
    private let log: AgentLog
    private let lockSource: LockSource
    let focus: FocusTracker
    private let idle: IdleWatcher
    /// Motion in the focused window (XDamage); nil when the server cannot tell.
    private let changes: VisibleChangeWatcher?
    /// The screen saver blanked, or held off by the focused application; nil when the server cannot tell.
    private let saver: ScreenSaverWatcher?
    /// Whether anyone is there, from all of the above (`Presence`).
    private var presence: Presence
    /// The look due when the last evidence runs out (`Presence.deadline`).
    private var presenceCheck: MainLoop.Registration?
    let idleThreshold: Duration
    private let logind = LogindWatcher()
    private var checkpoints: CheckpointTimer!
    private var focusedWebsite: FocusedWebsite!
    /// The focus as last observed.
    private(set) var lastFocus: FocusObservation?

    /// What counts for an observed focus: the application and the website its window
    /// shows; nothing for a shield, or for a window whose application is not known yet.
    var counted: (FocusObservation) -> (app: AppIdentity?, site: Website?) = { _ in (nil, nil) }
    /// After every change the accountant was told of (the agents say who is present and
    /// run the engine).
    var changed: () -> Void = {}

    init(
        connection: XConnection, loop: MainLoop, sink: any UsageSink, minter: TokenMinter, idleThreshold: Duration,
        lockSource: LockSource, log: AgentLog
    ) throws {
        self.connection = connection
        self.loop = loop
        self.log = log
        self.lockSource = lockSource
        self.idleThreshold = idleThreshold
        accountant = UsageAccountant(sink: sink, minter: minter) { [log] problem in log.error(problem) }
        focus = FocusTracker(connection: connection, loop: loop)
        idle = try IdleWatcher(connection: connection, threshold: idleThreshold)
        presence = Presence(threshold: idleThreshold)
        do {
            changes = try VisibleChangeWatcher(connection: connection, loop: loop)
        } catch {
            log.warning("a playing video counts only while input comes: \(error)")
            changes = nil
        }
        do {
            saver = try ScreenSaverWatcher(connection: connection)
        } catch {
            log.warning("the screen saver's state is not followed: \(error)")
            saver = nil
        }
        checkpoints = CheckpointTimer(loop: loop) { [unowned self] in accountant.checkpoint(at: now()) }
        focusedWebsite = FocusedWebsite(accountant: accountant, loop: loop, now: { [unowned self] in now() }) {
            [unowned self] in afterChange()
        }
    }

    var isPresent: Bool { !accountant.isIdle && !accountant.isLocked }

    func now() -> ClockReading { connection.timeSource.now() }

    /// Follows idle time, logind and the focus; `afterFocus` runs after each focus change
    /// was counted. `logindMissing` says what is not detected without logind.
    func start(logindMissing: (any Error) -> Void, afterFocus: @escaping (FocusObservation) -> Void = { _ in }) {
        idle.start { [unowned self] transition in
            switch transition {
            case .becameIdle(let lastInput):
                log.debug("no input since \(lastInput.wall)")
                take(.inputIdle(lastInput: lastInput, at: now()))
            case .returned(let time):
                log.debug("input again")
                take(.inputReturned(at: time))
            }
        }
        if log.verbose {
            changes?.trace = { [log] line in log.debug("damage: \(line)") }
            saver?.trace = { [log] line in log.debug("screen saver: \(line)") }
        }
        changes?.start { [unowned self] since, latest in take(.motion(since: since, latest: latest)) }
        do {
            try saver?.start(
                blank: { [unowned self] blank, time in
                    log.debug("the screen saver is \(blank ? "on" : "off")")
                    take(.blanked(blank, at: time))
                },
                holdsChanged: { [unowned self] time in updateHolding(at: time) })
        } catch {
            log.warning("an application holding the screen saver off is not seen: \(error)")
        }
        do {
            try logind.start { [unowned self] event in
                log.debug("logind: \(event)")
                if lockSource == .idleOnly, case .locked(let locked) = event {
                    if locked {
                        log.info(
                            "logind says the session is locked: ignored (the child may set LockedHint; idle time "
                                + "counts)"
                        )
                    }
                    return
                }
                accountant.take(event, at: now())
                afterChange()
            }
        } catch {
            logindMissing(error)
        }
        if log.verbose { focus.trace = { [log] line in log.debug("focus tracker: \(line)") } }
        focus.start { [unowned self] observation in
            lastFocus = observation
            changes?.watch(observation.window)
            updateHolding(at: observation.time)
            let (app, site) = counted(observation)
            log.debug(
                "focus: \(observation.window.map { "\($0)" } ?? "none") \(app?.publicID ?? "-")"
                    + "\(site.map { " on \($0)" } ?? "") (\(observation.cause)"
                    + "\(observation.serverTime.map { ", server time \($0)" } ?? ""))")
            focusedWebsite.show(window: observation.window, app: app, site: site, source: .window, at: observation.time)
            afterChange()
            afterFocus(observation)
        }
    }

    /// Counts the focused window again: its application is known anew (`.window`), or its
    /// browser reported another tab (`.report`).
    func recount(_ source: WebsiteSettling.Source) {
        guard let observation = lastFocus else { return }
        let (app, site) = counted(observation)
        // Told even when it is what is counted: a change held (`WebsiteSettling`) is undone.
        if source == .report, app?.key != accountant.focused?.key || site != accountant.site {
            log.debug("website: \(site.map { "\($0)" } ?? "none") on the focused window")
        }
        focusedWebsite.show(window: observation.window, app: app, site: site, source: source, at: now())
        afterChange()
    }

    /// Stops counting: the open interval ends now.
    func stop(reason: IntervalEndReason) {
        accountant.stop(at: now(), reason: reason)
        checkpoints.cancel()
    }

    /// Whether the focused window's process holds the screen saver off, told to `presence`.
    private func updateHolding(at time: ClockReading) {
        guard let saver else { return }
        take(.holding(saver.holds.isHeld(byProcess: lastFocus?.facts?.pid), at: time))
    }

    /// Tells `presence` of new evidence; the accountant takes the change it makes, and a look
    /// is kept due for when the evidence runs out.
    private func take(_ evidence: Presence.Evidence) {
        if let transition = presence.take(evidence) {
            switch transition {
            case .becameIdle(let end):
                log.debug("away since \(end.wall)")
                accountant.userWentIdle(lastInput: end)
            case .returned(let time):
                log.debug("present again since \(time.wall) (\(evidence.name))")
                accountant.userReturned(at: time)
            }
            afterChange()
        }
        guard let deadline = presence.deadline else {
            presenceCheck?.cancel()
            presenceCheck = nil
            return
        }
        // One look pending at a time: evidence only moves the deadline later, and a look that
        // comes early finds the person present and arms the next.
        guard presenceCheck == nil else { return }
        presenceCheck = loop.schedule(after: max(.zero, now().monotonic.duration(to: deadline.monotonic))) {
            [unowned self] in
            presenceCheck = nil
            take(.check(at: now()))
        }
    }

    /// Keeps the one-second checkpoint running exactly while time is counted (so a crash
    /// loses at most a second), then tells the agent.
    private func afterChange() {
        checkpoints.keep(running: accountant.isCounting)
        changed()
    }
}
