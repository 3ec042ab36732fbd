import Foundation
import GLibRuntime
import ScreenwardCore
import SessionDisplay

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
    /// The focus and the evidence of presence come from the display (X11, or a Wayland backend).
    let display: any DisplayBackend
    private let loop: MainLoop
    private let log: AgentLog
    private let lockSource: LockSource
    /// Whether anyone is there, from the display's evidence (`Presence`).
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
        display: any DisplayBackend, loop: MainLoop, sink: any UsageSink, minter: TokenMinter,
        idleThreshold: Duration, lockSource: LockSource, log: AgentLog
    ) {
        self.display = display
        self.loop = loop
        self.log = log
        self.lockSource = lockSource
        self.idleThreshold = idleThreshold
        accountant = UsageAccountant(sink: sink, minter: minter) { [log] problem in log.error(problem) }
        presence = Presence(threshold: idleThreshold)
        checkpoints = CheckpointTimer(loop: loop) { [unowned self] in accountant.checkpoint(at: now()) }
        focusedWebsite = FocusedWebsite(accountant: accountant, loop: loop, now: { [unowned self] in now() }) {
            [unowned self] in afterChange()
        }
    }

    var isPresent: Bool { !accountant.isIdle && !accountant.isLocked }

    func now() -> ClockReading { display.timeSource.now() }

    /// Follows idle time, logind and the focus; `afterFocus` runs after each focus change
    /// was counted. `logindMissing` says what is not detected without logind.
    func start(logindMissing: (any Error) -> Void, afterFocus: @escaping (FocusObservation) -> Void = { _ in }) {
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
        if log.verbose { display.trace = { [log] line in log.debug(line) } }
        display.start(
            focus: { [unowned self] observation in focused(observation, then: afterFocus) },
            presence: { [unowned self] evidence in take(evidence) })
        for limitation in display.limitations { log.warning(limitation) }
    }

    private func focused(_ observation: FocusObservation, then afterFocus: (FocusObservation) -> Void) {
        lastFocus = observation
        let (app, site) = counted(observation)
        log.debug(
            "focus: \(observation.window.map { "\($0)" } ?? "none") \(app?.publicID ?? "-")"
                + "\(site.map { " on \($0)" } ?? "") (\(observation.cause)"
                + "\(observation.serverTime.map { ", server time \($0)" } ?? ""))")
        focusedWebsite.show(window: observation.window, app: app, site: site, source: .window, at: observation.time)
        afterChange()
        afterFocus(observation)
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
