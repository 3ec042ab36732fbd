import ScreenwardBasics

/// Where the time goes while a browser window changes website.
///
/// The agent hears of the change twice: the window's X title changes (a browser titles its
/// window after the active tab) and the browser's report names the new tab (through the
/// extension and its host), a few milliseconds apart and in either order. In between, the
/// window matches no report (`BrowserTabs` matches a report to a window by its title), and
/// counted as it stands, that moment would be the browser's alone, a gap of a few
/// milliseconds at each tab switch that no website gets.
///
/// So a window that showed a website and now matches no report is held: the website it
/// showed keeps the time until the new one is known (at most `patience`), and the boundary
/// goes where the window's title changed, which is when the person saw the new tab: the
/// moment the hold began when the title came first, the moment it ends when the report did.
/// A window that matches no report for longer shows no website from the moment the hold
/// began. Anything else (another window, an application, the shield) is told at once.
///
/// A policy as a value: it is told what the focused window shows and what the accountant
/// counts, and returns what to tell the accountant; the agent calls `expire` at `deadline`.
public struct WebsiteSettling: Sendable {
    /// How long a window that matches no report keeps its website's time. Far above the
    /// few milliseconds between a title and a report, far below anything a person notices.
    public static let patience: Duration = .milliseconds(500)

    /// What told the agent of the change.
    public enum Source: Sendable {
        /// The focused window: another window, or its title or identity changed.
        case window
        /// A browser's report of its tabs.
        case report
    }

    /// What to tell the accountant: the focus shows `app` (and `site`) from `at`.
    public struct Change: Sendable, Equatable {
        public var app: AppIdentity?
        public var site: Website?
        public var at: ClockReading
    }

    private struct Held: Sendable {
        var window: UInt
        var app: AppIdentity
        var since: ClockReading
        var source: Source
    }

    private var held: Held?

    public init() {}

    /// When the change held runs out of patience (`expire` is then due), if one is held.
    public var deadline: SuspendingClock.Instant? { held.map { $0.since.monotonic + Self.patience } }

    /// The focused window `window` shows `shown` (its application, and the website by its
    /// browser's report), as `source` told at `now`; the accountant counts `counting`.
    /// Returns what to tell the accountant, in order.
    public mutating func update(
        window: UInt?, shown: (app: AppIdentity?, site: Website?), counting: (app: AppIdentity?, site: Website?),
        source: Source,
        at now: ClockReading
    ) -> [Change] {
        let same = shown.app?.key == counting.app?.key && shown.site == counting.site
        // The window that showed a website matches no report now: held, from the first moment.
        if !same, let window, let app = shown.app, app.key == counting.app?.key, shown.site == nil, counting.site != nil
        {
            if let held, held.window == window, held.app.key == app.key { return [] }
            held = Held(window: window, app: app, since: now, source: source)
            return []
        }
        guard let settled = held else { return [Change(app: shown.app, site: shown.site, at: now)] }
        held = nil
        // Back to what is counted (the title flickered), or the new website is known.
        if let window, settled.window == window, shown.app?.key == settled.app.key {
            if same { return [Change(app: shown.app, site: shown.site, at: now)] }
            return [Change(app: shown.app, site: shown.site, at: settled.source == .window ? settled.since : now)]
        }
        // Another window: the one held showed no website it could name since its change.
        return [
            Change(app: settled.app, site: nil, at: settled.since), Change(app: shown.app, site: shown.site, at: now),
        ]
    }

    /// The patience ran out at `now`: the window held shows no website that can be named,
    /// from the moment it was held.
    public mutating func expire(at now: ClockReading) -> [Change] {
        guard let settled = held, let deadline, now.monotonic >= deadline else { return [] }
        held = nil
        return [Change(app: settled.app, site: nil, at: settled.since)]
    }
}
