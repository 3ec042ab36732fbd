import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardBasics

/// Child mode fails closed for a browser Screenward cannot see into: a browser's process
/// whose window had the focus while no vetted report of its tabs names it (the extension
/// disabled, a browser started with extensions off, a browser that cannot run the
/// extension) is "not supported" once its patience is over, and its windows are shielded
/// until a report names it. Each such process is recorded once for the guardians.
///
/// Its start is no window to use: from the moment a browser's window has the focus with no
/// report naming its process, its windows are covered by a shield that says it is being
/// checked (`checkingStore`), which does not hold the process (the extension must load), and
/// which the report lifts. A browser killed and started again in a loop is covered at each
/// start; its pages never show before a report. A browser whose host is killed is covered at
/// once; the third time within a minute it is shielded as not supported at once.
///
/// A policy as a value: it is told what the session shows and when, and returns what to
/// do; the managed agent carries it out on its loop (tested without processes or clocks).
public struct UnsupportedBrowsers: Sendable {
    /// How long a focused browser window may go without a report.
    public static let patience: Duration = .seconds(2)
    /// How long a browser that can run the extension has, from its start, to load it before
    /// that patience counts (a first start installs the extension, which takes seconds).
    public static let startupAllowance: Duration = .seconds(10)
    /// The store child mode adds to shield these processes' windows.
    public static let store = "unsupported-browser"
    /// The store that covers a browser's windows while it is checked: its processes are not
    /// held (the daemon holds no process a shield of this store covers).
    public static let checkingStore = "browser-checking"

    public enum Action: Equatable, Sendable {
        /// Look again at this instant (a patience ends then).
        case wake(at: ContinuousClock.Instant)
        /// Shield the process's windows (as `UnsupportedBrowsers.identity(of:)`).
        case shield(pid: Int32, browser: AppIdentity)
        /// A report names the process now: its windows are the browser's again.
        case lift(pid: Int32)
        /// Say so in the child's events (once per process).
        case record(pid: Int32, browser: AppIdentity)
    }

    private struct Waiting: Sendable {
        var browser: AppIdentity
        var deadline: ContinuousClock.Instant
    }

    private var waiting: [Int32: Waiting] = [:]
    /// The processes shielded now, with the browser each runs.
    public private(set) var unsupported: [Int32: AppIdentity] = [:]
    /// The browser each process seen focused runs.
    private var browsers: [Int32: AppIdentity] = [:]
    /// When each process's report ended lately (its host gone while it ran).
    private var losses: [Int32: [ContinuousClock.Instant]] = [:]
    private var lastReported: Set<Int32> = []
    /// The processes recorded as not supported (once each).
    private var recorded: Set<Int32> = []
    /// The processes covered while they are checked (no report yet, patience not over).
    public var checking: [Int32: AppIdentity] { waiting.mapValues(\.browser) }

    public init() {}

    /// Whether `app` (running `executable`) is a web browser: its desktop entry says so, or
    /// it runs one of the browsers Screenward installs into.
    public static func isBrowser(_ app: AppIdentity, executable: String?) -> Bool {
        app.categories.contains("WebBrowser") || executable.map(BrowserInstallation.browserExecutables.contains) == true
    }

    /// The identity the windows of an unsupported browser's process take while shielded: its
    /// executable, named as the browser (a supported process of the same browser keeps its own).
    public static func identity(of browser: AppIdentity, executable: String) -> AppIdentity {
        AppIdentity(key: .executable(executable), displayName: browser.displayName, iconName: browser.iconName)
    }

    /// What the session shows at `now`: the focused browser window's process and browser
    /// (nil: no window has the focus, or not a browser's), and when that process started if
    /// it is a browser that can run the extension (nil for one that cannot: it has no
    /// startup allowance); and which processes the vetted reports name.
    public mutating func observe(
        focused: (pid: Int32, browser: AppIdentity, started: ContinuousClock.Instant?)?, reported: Set<Int32>,
        now: ContinuousClock.Instant
    ) -> [Action] {
        var actions: [Action] = []
        noteLosses(reported: reported, now: now)
        if let focused { browsers[focused.pid] = focused.browser }
        for pid in unsupported.keys.sorted() where reported.contains(pid) {
            unsupported[pid] = nil
            actions.append(.lift(pid: pid))
        }
        for pid in waiting.keys where reported.contains(pid) { waiting[pid] = nil }
        // A report lost again and again (its host killed in a loop) is not waited for.
        for (pid, browser) in browsers.sorted(by: { $0.key < $1.key })
        where !reported.contains(pid) && unsupported[pid] == nil && isFlapping(pid) {
            waiting[pid] = Waiting(browser: browser, deadline: now)
        }
        if let focused, !reported.contains(focused.pid), unsupported[focused.pid] == nil, waiting[focused.pid] == nil {
            let allowed = focused.started.map { $0 + Self.startupAllowance } ?? now
            waiting[focused.pid] = Waiting(browser: focused.browser, deadline: max(now + Self.patience, allowed))
        }
        for (pid, wait) in waiting.sorted(by: { $0.key < $1.key }) where wait.deadline <= now {
            waiting[pid] = nil
            unsupported[pid] = wait.browser
            actions.append(.shield(pid: pid, browser: wait.browser))
            if recorded.insert(pid).inserted { actions.append(.record(pid: pid, browser: wait.browser)) }
        }
        if let next = waiting.values.map(\.deadline).min() { actions.append(.wake(at: next)) }
        return actions
    }

    /// How many times within `lossWindow` a process's report may end (its host gone while it
    /// runs) before its browser is shielded as not supported at once when it ends, unwaited
    /// for. (Held, as every unsupported browser is, it starts no host again: the child closes
    /// it.)
    public static let lossesBeforeShield = 3
    public static let lossWindow: Duration = .seconds(60)

    private mutating func noteLosses(reported: Set<Int32>, now: ContinuousClock.Instant) {
        for pid in lastReported.subtracting(reported) { losses[pid, default: []].append(now) }
        lastReported = reported
        for (pid, times) in losses {
            let recent = times.filter { now < $0 + Self.lossWindow }
            losses[pid] = recent.isEmpty ? nil : recent
        }
    }

    private func isFlapping(_ pid: Int32) -> Bool {
        (losses[pid]?.count ?? 0) >= Self.lossesBeforeShield
    }

    /// Forgets the processes that ended (a pid may come back as another program).
    public mutating func forgetEnded(isRunning: (Int32) -> Bool) {
        waiting = waiting.filter { isRunning($0.key) }
        unsupported = unsupported.filter { isRunning($0.key) }
        browsers = browsers.filter { isRunning($0.key) }
        losses = losses.filter { isRunning($0.key) }
        recorded = recorded.filter(isRunning)
        lastReported = lastReported.filter(isRunning)
    }
}
