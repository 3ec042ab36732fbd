import Foundation
import GLibRuntime
import ScreenwardCore
import SessionDisplay

/// A wlroots compositor's session (sway, labwc, Wayfire, river): the focus from its foreign
/// toplevels (`ForeignToplevels`), the process behind the focused one from sway's IPC
/// (`SwayWindows`), and input idle from its idle protocol (`IdleNotification`).
///
/// Wayland tells one client nothing of another's toplevels beyond what the compositor
/// forwards: no process, no position, no pixels. An `app_id` is the client's own choice, so a
/// window is its process's application wherever the compositor names the process.
public final class WaylandDisplay: DisplayBackend {
    public let connection: WaylandConnection
    private let loop: MainLoop
    public let toplevels: ForeignToplevels
    private let idle: IdleNotification
    /// Sway's word on the focused window's process; nil on another wlroots compositor.
    private let processes: SwayWindows?
    public private(set) var limitations: [String] = []
    public var trace: ((String) -> Void)?
    public let timeSource: any TimeSource = SystemTimeSource()
    /// What was last reported: a change of window, or of the window's app_id or title, is told.
    private var reported: ForeignToplevels.Toplevel?
    private var focusHandler: (FocusObservation) -> Void = { _ in }

    /// Connects to `displayName` (default `$WAYLAND_DISPLAY`); input idle for `idleThreshold`
    /// is evidence that nobody is there. Throws when the compositor is not one this backend can
    /// follow (GNOME Shell and KWin offer no foreign toplevels).
    /// With `compositor`, the display's listener must be that process (a managed session's).
    public init(
        displayName: String?, loop: MainLoop, idleThreshold: Duration, environment: [String: String],
        compositor: Int32? = nil
    ) throws {
        connection = try WaylandConnection(displayName: displayName, compositor: compositor)
        self.loop = loop
        toplevels = try ForeignToplevels(connection: connection)
        idle = try IdleNotification(connection: connection, threshold: idleThreshold)
        do {
            let sway = try SwayWindows.locate(environment: environment)
            sway.expectedPeer = connection.compositorPID
            _ = try sway.focused()
            processes = sway
        } catch {
            processes = nil
            limitations.append(
                "windows are told apart by their app_id alone, which a program chooses itself: this compositor "
                    + "names no window's process (\(error))")
        }
    }

    public var name: String { connection.displayName }
    /// Whether each window's process is known (sway's IPC), not only the app_id it chose.
    public var namesProcesses: Bool { processes != nil }
    public var focusSource: String {
        "wlroots foreign toplevels"
            + (processes.map { _ in ", processes from sway's IPC" } ?? "") + ", idle from \(idle.source)"
    }

    public func onConnectionLost(_ handler: @escaping () -> Void) {
        connection.onConnectionLost(handler)
    }

    public func start(focus: @escaping (FocusObservation) -> Void, presence: @escaping (Presence.Evidence) -> Void) {
        focusHandler = focus
        idle.start(as: presence, clock: timeSource) { [unowned self] line in trace?(line) }
        toplevels.start {}
        // The toplevels there now come in the first round trip.
        connection.roundtrip()
        report(cause: .initial, force: true)
        connection.attach(to: loop) { [unowned self] in report(cause: .activeWindowChanged) }
    }

    /// Tells the focus when the compositor's last events changed it: another toplevel activated
    /// (or none), or the activated one's app_id or title.
    private func report(cause: FocusObservation.Cause, force: Bool = false) {
        let current = toplevels.activated
        guard force || current != reported else { return }
        let previous = reported
        reported = current
        let time = timeSource.now()
        guard let current else {
            let closed = previous.map { old in !toplevels.toplevels.contains { $0.window == old.window } } ?? false
            focusHandler(
                FocusObservation(window: nil, facts: nil, time: time, cause: closed ? .windowDestroyed : cause))
            return
        }
        let sameWindow = previous?.window == current.window
        focusHandler(
            FocusObservation(
                window: current.window, facts: facts(of: current), time: time,
                cause: sameWindow && !force ? .windowPropertiesChanged : cause))
    }

    /// The toplevel's facts, with its process when the compositor names it. Sway is asked for its
    /// focused window, which must be this toplevel (its app_id, or an Xwayland window's class);
    /// when another took the focus since, the process is left unknown until its own report.
    private func facts(of toplevel: ForeignToplevels.Toplevel) -> WindowFacts {
        var facts = WindowFacts(windowID: toplevel.window.rawValue, appID: toplevel.appID, title: toplevel.title)
        guard let processes else { return facts }
        do {
            guard let focused = try processes.focused() else {
                trace?("sway: no focused window for \(toplevel.window)")
                return facts
            }
            let name = focused.appID ?? focused.wmClass
            guard name == toplevel.appID else {
                trace?("sway: its focused window is \(name ?? "-"), not \(toplevel.appID ?? "-")")
                return facts
            }
            facts.pid = focused.pid
            if focused.appID == nil {
                // An Xwayland window: its WM_CLASS, as on X11.
                facts.wmClass = focused.wmClass
                facts.wmInstance = focused.wmInstance
                facts.appID = nil
            }
        } catch {
            trace?("sway: \(error)")
        }
        return facts
    }
}
