import GLibRuntime
import ScreenwardCore
import SessionDisplay
import X11Session

/// How both agents tell the accountant what the focused window shows: through
/// `WebsiteSettling` (a browser window between its title and its report keeps its website),
/// whose patience is timed on the loop.
final class FocusedWebsite {
    private var settling = WebsiteSettling()
    private var timer: MainLoop.Registration?
    private let accountant: UsageAccountant
    private let loop: MainLoop
    private let now: () -> ClockReading
    /// Runs after the patience ran out and the accountant was told (the agent's state changed).
    private let expired: () -> Void

    init(accountant: UsageAccountant, loop: MainLoop, now: @escaping () -> ClockReading, expired: @escaping () -> Void)
    {
        self.accountant = accountant
        self.loop = loop
        self.now = now
        self.expired = expired
    }

    /// The focused `window` shows `app` and `site`, as `source` told at `time`.
    func show(
        window: WindowID?, app: AppIdentity?, site: Website?, source: WebsiteSettling.Source, at time: ClockReading
    ) {
        let changes = settling.update(
            window: window?.rawValue, shown: (app, site), counting: (accountant.focused, accountant.site),
            source: source, at: time)
        tell(changes)
        timer?.cancel()
        timer = nil
        guard let deadline = settling.deadline else { return }
        timer = loop.schedule(after: SuspendingClock.now.duration(to: deadline)) { [unowned self] in
            timer = nil
            tell(settling.expire(at: now()))
            expired()
        }
    }

    private func tell(_ changes: [WebsiteSettling.Change]) {
        for change in changes { accountant.focusChanged(to: change.app, site: change.site, at: change.at) }
    }
}
