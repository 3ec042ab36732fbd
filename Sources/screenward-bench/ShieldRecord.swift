import Foundation
import GLibRuntime
import ScreenwardCore
import SessionDisplay
import SessionHarness
import X11Session

/// The X server's record of the shields, on a connection of the benchmark's own:
/// every managed window's frame (decorations included: its root geometry grown by
/// the `_NET_FRAME_EXTENTS` the window manager sets), whether it is viewable, its
/// WM_CLASS, and `_NET_ACTIVE_WINDOW` with the server time of each change, all in
/// the order the server sent them.
///
/// A sample ends when the shield over the sample's window is viewable, has exactly
/// that window's frame and holds the focus. The change that completes it is
/// usually the activation, whose server time is the end; when the last change is
/// a move or a map (events without a time stamp), the end is the server time read
/// as soon as it is seen, a bound from above. Geometry is read from the server as
/// its event is handled, as the agent's own watcher does.
final class ShieldRecord {
    /// A shield is what the agent makes: WM_CLASS `shield`, `Screenward`.
    static func isShield(_ window: ClientWindow) -> Bool {
        window.facts.wmInstance == "shield" && window.facts.wmClass == "Screenward"
    }

    struct End {
        var shield: WindowID
        /// Server milliseconds.
        var serverTime: UInt32
        /// Whether the end is the activation's own time stamp (else: read once seen).
        var stamped: Bool
    }

    private let loop = MainLoop()
    private let watcher: ClientWindowWatcher
    private let connection: XConnection
    private(set) var windows: [WindowID: ClientWindow] = [:]
    private(set) var active: WindowID?
    /// The window whose shield is awaited, and the shield if it is known.
    private var awaited: (target: WindowID, shield: WindowID?)?
    /// When the awaited state began to hold (nil while it does not).
    private var since: (shield: WindowID, serverTime: UInt32?)?

    init(display: String) throws {
        let connection = try XConnection(displayName: display)
        watcher = ClientWindowWatcher(connection: connection, loop: loop)
        self.connection = connection
        watcher.start { [unowned self] event in handle(event) }
    }

    /// Reads what the server has sent so far: call it before acting, so that only
    /// what follows the act can end the sample.
    func update() {
        loop.iterate(until: { false }, timeout: .milliseconds(1))
    }

    /// Waits until the shield over `target` (`shield`, or any of the agent's shields
    /// when not known) is viewable with `target`'s frame and holds the focus. Only
    /// changes read from here on count: a state that already held needs a change.
    /// `meanwhile` runs after each event read (another record that must keep up: a
    /// new window's creation must be seen before the window manager maps it).
    func waitForShield(
        over target: WindowID, shield: WindowID? = nil, timeout: Duration = .seconds(10), meanwhile: () -> Void = {}
    ) throws -> End {
        awaited = (target, shield)
        since = nil
        defer { awaited = nil }
        guard
            loop.iterate(
                until: {
                    meanwhile()
                    return since != nil
                }, timeout: timeout), let since
        else {
            throw HarnessError.timedOut(
                "the shield over \(target) never held the focus with its frame (\(describe(target)))")
        }
        if let time = since.serverTime { return End(shield: since.shield, serverTime: time, stamped: true) }
        guard let now = connection.serverTimeNow() else {
            throw HarnessError.failed("the X server did not tell its time")
        }
        return End(shield: since.shield, serverTime: now.rawValue, stamped: false)
    }

    /// Activates `window` (with `activate`) until the server's record shows it holding the
    /// focus for `settled` without a change; throws when it does not within `timeout`.
    func holdFocus(
        _ window: WindowID, settled: Duration, timeout: Duration = .seconds(10), activate: () throws -> Void
    ) throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            update()
            if active != window { try activate() }
            guard loop.iterate(until: { active == window }, timeout: .seconds(2)) else { continue }
            // Held: a change within `settled` starts it over (activating again if need be).
            if !loop.iterate(until: { active != window }, timeout: settled) { return }
        }
        throw HarnessError.timedOut("\(window) did not keep the focus (\(describe(window)))")
    }

    /// The X server's time now (milliseconds).
    func serverTime() throws -> UInt32 {
        guard let now = connection.serverTimeNow() else {
            throw HarnessError.failed("the X server did not tell its time")
        }
        return now.rawValue
    }

    /// How many shield windows have appeared so far (ids are reused once their client
    /// is gone, so a new agent's shield may have an old one's id).
    private(set) var shieldsAdded = 0

    /// Reads events until more than `count` shields have appeared (a new agent's first
    /// window); returns the server time when it was seen (an upper bound: creation has no
    /// time stamp).
    func waitForNewShield(after count: Int, timeout: Duration = .seconds(10)) throws -> UInt32 {
        guard loop.iterate(until: { shieldsAdded > count }, timeout: timeout) else {
            throw HarnessError.timedOut("no new agent's window within \(timeout)")
        }
        return try serverTime()
    }

    /// Reads events until a shield covers `target` with its frame, viewable and focused, as
    /// the record stands (however it got there); returns the server time when that was
    /// first seen (an upper bound).
    func waitUntilCovered(_ target: WindowID, timeout: Duration = .seconds(10)) throws -> UInt32 {
        func covered() -> Bool {
            guard let active, let shield = windows[active], Self.isShield(shield), shield.isViewable,
                let window = windows[target]
            else { return false }
            return shield.frame == window.frame
        }
        guard loop.iterate(until: covered, timeout: timeout) else {
            throw HarnessError.timedOut("no shield covered \(target) within \(timeout) (\(describe(target)))")
        }
        return try serverTime()
    }

    /// Reads events until a managed window whose WM_CLASS instance is `instance` appears;
    /// returns it.
    func waitForWindow(instance: String, timeout: Duration = .seconds(10), meanwhile: () -> Void = {}) throws
        -> WindowID
    {
        var found: WindowID?
        guard
            loop.iterate(
                until: {
                    meanwhile()
                    found = windows.values.first { $0.facts.wmInstance == instance }?.id
                    return found != nil
                }, timeout: timeout), let found
        else {
            throw HarnessError.timedOut("no window of instance \(instance) within \(timeout)")
        }
        return found
    }

    /// Reads events until a shield is viewable with `target`'s frame, focused or not (a
    /// window the window manager did not focus gets its shield in the background); returns
    /// the server time when that was first seen (an upper bound: a map has no time stamp).
    func waitUntilShown(over target: WindowID, timeout: Duration = .seconds(10), meanwhile: () -> Void = {}) throws
        -> UInt32
    {
        func shown() -> Bool {
            guard let window = windows[target] else { return false }
            return windows.values.contains { Self.isShield($0) && $0.isViewable && $0.frame == window.frame }
        }
        guard
            loop.iterate(
                until: {
                    meanwhile()
                    return shown()
                }, timeout: timeout)
        else {
            throw HarnessError.timedOut("no shield shown over \(target) within \(timeout) (\(describe(target)))")
        }
        return try serverTime()
    }

    /// Reads events until no viewable shield has `target`'s frame any more; returns the
    /// server time when that was first seen (an upper bound: an unmap has no time stamp).
    func waitUntilUncovered(_ target: WindowID, timeout: Duration = .seconds(10)) throws -> UInt32 {
        func covered() -> Bool {
            guard let window = windows[target] else { return false }
            return windows.values.contains { Self.isShield($0) && $0.isViewable && $0.frame == window.frame }
        }
        guard loop.iterate(until: { !covered() }, timeout: timeout) else {
            throw HarnessError.timedOut("the shield over \(target) stayed for \(timeout) (\(describe(target)))")
        }
        return try serverTime()
    }

    /// What the record says about `target` and the shields, for a failure's message.
    func describe(_ target: WindowID) -> String {
        let shields = windows.values.filter(Self.isShield).map {
            "\($0.id) at \($0.frame)\($0.isViewable ? "" : " (not viewable)")"
        }
        return
            """
            window \(target) at \(windows[target].map { "\($0.frame)" } ?? "?"); active \
            \(active.map { "\($0)" } ?? "none"); shields: \(shields.joined(separator: ", "))
            """
    }

    private func handle(_ event: ClientWindowEvent) {
        switch event {
        case .added(let window):
            if Self.isShield(window) { shieldsAdded += 1 }
            windows[window.id] = window
            evaluate(serverTime: nil)
        case .changed(let window):
            windows[window.id] = window
            evaluate(serverTime: nil)
        case .removed(let id):
            windows[id] = nil
            evaluate(serverTime: nil)
        case .activated(let window, let serverTime):
            active = window
            evaluate(serverTime: serverTime.rawValue)
        case .unmanagedMapped, .keyboardGrab, .restacked:
            break
        }
    }

    /// After each change: does the awaited state hold, and since when?
    private func evaluate(serverTime: UInt32?) {
        guard let awaited else { return }
        guard let active, let shield = windows[active], Self.isShield(shield), shield.isViewable,
            awaited.shield == nil || awaited.shield == active,
            let target = windows[awaited.target], shield.frame == target.frame
        else {
            since = nil
            return
        }
        if since?.shield != active { since = (active, serverTime) }
    }
}

/// Waits until the agent says it covers `window` (`screenward shields --json`) and returns its shield.
func waitForCover(of window: String, agent: AgentRun, timeout: TimeInterval = 20) throws -> WindowID {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if let shield = try coveringShield(of: window, agent: agent) { return shield }
        Thread.sleep(forTimeInterval: 0.1)
    }
    throw HarnessError.timedOut("the agent never covered \(window)")
}

/// The shield the agent says covers `window` now, from `screenward shields --json`.
func coveringShield(of window: String, agent: AgentRun) throws -> WindowID? {
    let object =
        try JSONSerialization.jsonObject(with: Data(try agent.cli(["shields", "--json"]).utf8)) as? [String: Any]
    guard let covered = object?["covered"] as? [[String: Any]],
        let entry = covered.first(where: { ($0["window"] as? String) == window }),
        let shield = entry["shield_window"] as? String
    else { return nil }
    return try windowID(shield)
}

func windowID(_ text: String) throws -> WindowID {
    guard let raw = UInt(text.replacingOccurrences(of: "0x", with: ""), radix: 16) else {
        throw HarnessError.failed("not a window id: \(text)")
    }
    return WindowID(raw)
}
