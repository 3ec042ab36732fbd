import Foundation
import GLibRuntime
import SessionDisplay
import WaylandSession
import X11Session

/// The display the agent runs on: an X display (the reference) or a Wayland compositor's. What
/// only X11 offers (a label drawn inside an app's window) asks for the X connection.
enum AgentDisplay {
    case x11(XConnection, X11Display)
    /// A wlroots compositor's (`WaylandDisplay`) or KWin's (`KWinDisplay`).
    case wayland(any WaylandBackend)

    /// Which display to follow: what the command line names, else the session's own, as its
    /// programs inherit it (`WAYLAND_DISPLAY` first: a Wayland session with Xwayland has both,
    /// and X11 would see only the Xwayland windows).
    enum Choice: Equatable {
        case x11(String?)
        case wayland(String?)
        /// The session's Wayland display, or its X display (Xwayland's) when the compositor is
        /// not one the agent can follow (GNOME Shell without Screenward's extension running).
        case waylandElseX11(wayland: String, x11: String)

        static func from(x11: String?, wayland: String?, environment: [String: String]) -> Choice {
            if let wayland { return .wayland(wayland) }
            if let x11 { return .x11(x11) }
            guard let name = environment["WAYLAND_DISPLAY"], !name.isEmpty else { return .x11(nil) }
            if let display = environment["DISPLAY"], !display.isEmpty {
                return .waylandElseX11(wayland: name, x11: display)
            }
            return .wayland(name)
        }
    }

    /// Opens the display chosen; `warn` hears why the session's Wayland display was passed
    /// over for its X display.
    /// `compositor`: the process a managed session's Wayland display must be served by.
    static func open(
        _ choice: Choice, loop: MainLoop, idleThreshold: Duration, compositor: Int32? = nil,
        warn: (String) -> Void = { _ in }
    ) throws -> AgentDisplay {
        switch choice {
        case .x11(let name):
            let connection = try XConnection(displayName: name)
            return .x11(connection, try X11Display(connection: connection, loop: loop, idleThreshold: idleThreshold))
        case .wayland(let name):
            let environment = ProcessInfo.processInfo.environment
            do {
                return .wayland(
                    try WaylandDisplay(
                        displayName: name, loop: loop, idleThreshold: idleThreshold, environment: environment,
                        compositor: compositor))
            } catch let error as WaylandError {
                // No foreign toplevels: KWin's and GNOME Shell's own ways, when one of them runs.
                guard case .missingProtocol(let missing, _) = error,
                    missing.hasPrefix("zwlr_foreign_toplevel_manager_v1"), compositor == nil
                else { throw error }
                if KWinDisplay.isRunning() {
                    return .wayland(
                        try KWinDisplay(
                            displayName: name, loop: loop, idleThreshold: idleThreshold, environment: environment))
                }
                guard GnomeShellDisplay.isRunning() else { throw error }
                return .wayland(
                    try GnomeShellDisplay(
                        displayName: name, loop: loop, idleThreshold: idleThreshold, environment: environment))
            }
        case .waylandElseX11(let wayland, let x11):
            do {
                return try open(.wayland(wayland), loop: loop, idleThreshold: idleThreshold)
            } catch let error where error is WaylandError || error is GnomeShellDisplay.Problem {
                warn(
                    "\(error): only the windows of the X display \(x11) (Xwayland's) are followed; the session's "
                        + "Wayland windows are not seen")
                return try open(.x11(x11), loop: loop, idleThreshold: idleThreshold)
            }
        }
    }

    var backend: any DisplayBackend {
        switch self {
        case .x11(_, let display): display
        case .wayland(let display): display
        }
    }

    var name: String { backend.name }

    /// The X connection, on X11.
    var x11: XConnection? {
        if case .x11(let connection, _) = self { connection } else { nil }
    }

    /// What a child process the agent starts on this display (a picker, a report) needs in its
    /// environment.
    var environment: [String: String] {
        switch self {
        case .x11(let connection, _): ["DISPLAY": connection.displayName]
        case .wayland(let display): ["WAYLAND_DISPLAY": display.name]
        }
    }

    /// Waits for the display to answer a round trip.
    func sync() {
        switch self {
        case .x11(let connection, _): connection.sync()
        case .wayland(let backend): backend.sync()
        }
    }

    /// Takes back what the agent put into the compositor, as the agent stops.
    func stop() {
        if case .wayland(let backend) = self { backend.stop() }
    }

    /// Carries the display's events on `loop` (a Wayland backend carries its own from `start`).
    func attach(to loop: MainLoop) {
        if case .x11(let connection, _) = self { loop.attach(connection) }
    }
}
