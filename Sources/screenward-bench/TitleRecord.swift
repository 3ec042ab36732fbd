import Foundation
import GLibRuntime
import ScreenwardCore
import SessionDisplay
import SessionHarness
import X11Session

/// Every managed window's title and `_NET_ACTIVE_WINDOW` as the X server announces them, on a
/// connection of the benchmark's own, each change stamped with the moment it is read.
///
/// A browser names its window after the active tab (`Wiki page - Chromium`), so a title is the
/// truth of what a window shows: a tab switch, a shield page replacing a page. The stamps are
/// this process's monotonic clock, read as the event arrives: the benchmark waits inside the
/// loop, so an event is read within a fraction of a millisecond of the server sending it.
final class TitleRecord {
    struct Change {
        var window: WindowID
        var title: String
        var at: ContinuousClock.Instant
    }

    private let loop = MainLoop()
    private let watcher: ClientWindowWatcher
    private(set) var titles: [WindowID: String] = [:]
    /// Every title change, in order.
    private(set) var changes: [Change] = []
    /// The window `_NET_ACTIVE_WINDOW` names, and when that was read.
    private(set) var active: (window: WindowID?, at: ContinuousClock.Instant)?

    init(display: String) throws {
        watcher = ClientWindowWatcher(connection: try XConnection(displayName: display), loop: loop)
        watcher.start { [unowned self] event in handle(event) }
    }

    private func handle(_ event: ClientWindowEvent) {
        let now = ContinuousClock.now
        switch event {
        case .added(let window), .changed(let window):
            guard let title = window.facts.title, titles[window.id] != title else { return }
            titles[window.id] = title
            changes.append(Change(window: window.id, title: title, at: now))
        case .activated(let window, _):
            active = (window, now)
        default:
            break
        }
    }

    /// Reads what the server has sent so far.
    func update() {
        loop.iterate(until: { false }, timeout: .milliseconds(1))
    }

    /// Reads the server's news for `duration` (a pause that keeps the stamps exact).
    func watch(for duration: Duration) {
        loop.iterate(until: { false }, timeout: duration)
    }

    /// Waits for the first title of `window` after change number `after` (`changes.count`
    /// read before acting) that `matches`; returns the change.
    func waitForTitle(of window: WindowID, after: Int, timeout: Duration = .seconds(10), _ matches: (String) -> Bool)
        throws -> Change
    {
        var found: Change?
        let seen = loop.iterate(
            until: {
                found = changes[after...].first { $0.window == window && matches($0.title) }
                return found != nil
            }, timeout: timeout, checkingEvery: .milliseconds(200))
        guard seen, let found else {
            throw HarnessError.timedOut(
                "window \(window) never got the title awaited; its titles since: \(titles(of: window, after: after))")
        }
        return found
    }

    /// The titles `window` had after change number `after`.
    func titles(of window: WindowID, after: Int) -> [String] {
        changes[after...].filter { $0.window == window }.map(\.title)
    }

    /// Waits until `_NET_ACTIVE_WINDOW` names `window`; returns when that was read.
    func waitForActivation(of window: WindowID, timeout: Duration = .seconds(10)) throws -> ContinuousClock.Instant {
        guard loop.iterate(until: { active?.window == window }, timeout: timeout, checkingEvery: .milliseconds(200)),
            let active
        else {
            throw HarnessError.timedOut("window \(window) never became active")
        }
        return active.at
    }
}
