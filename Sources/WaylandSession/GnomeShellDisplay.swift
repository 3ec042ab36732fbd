import CGLib
import Foundation
import GLibRuntime
import ScreenwardCore
import SessionDisplay

/// A GNOME Shell session: no Wayland protocol tells a client which window has the focus, and
/// none lets it draw above the others, so Screenward's extension inside the Shell
/// (`data/gnome-shell/`, installed system-wide) does both for the agent, over a socket the agent
/// listens on (`ShellLink`), which only the Shell's own process may connect to. The extension
/// tells each focus change (the window's process as Mutter knows it from the client's socket,
/// its class, sandboxed app id, title and a stable id) and input idle from the Shell's own idle
/// monitor, and draws the shield the agent sends (`showShield`), telling back when it is drawn
/// and which button was pressed.
public final class GnomeShellDisplay: DisplayBackend {
    public static let extensionUUID = "screenward@screenward.org"
    public let connection: WaylandConnection
    private let link: ShellLink
    private let idleThreshold: Duration
    public let limitations: [String] = []
    public var trace: ((String) -> Void)? {
        didSet { link.trace = trace }
    }
    public let timeSource: any TimeSource = SystemTimeSource()
    /// The stable id (Mutter's) of the window last reported with the focus.
    private var reported: String?
    /// The extension drew the shield sent last, over its stage (`WIDTHxHEIGHT`).
    public var onShieldShown: ((String) -> Void)?
    /// A button of the shield was pressed (`primaryButtonPressed` or `secondaryButtonPressed`).
    public var onShieldPressed: ((String) -> Void)?
    /// The shield last asked for, sent again when the Shell connects again.
    private var shield = ""

    public enum Problem: Error, CustomStringConvertible {
        case noShell
        case extensionOff(String)

        public var description: String {
            switch self {
            case .noShell: "GNOME Shell is not on the session bus (org.gnome.Shell)"
            case .extensionOff(let state):
                "GNOME Shell's Screenward extension is not running (\(state)): enable it with "
                    + "`gnome-extensions enable \(GnomeShellDisplay.extensionUUID)` (the package installs it)"
            }
        }
    }

    /// Where a person's own agent listens for the extension: `screenward/shell.sock` in their
    /// runtime folder (the extension looks there).
    public static func personalSocket(environment: [String: String]) -> String? {
        environment["XDG_RUNTIME_DIR"].map { "\($0)/screenward/shell.sock" }
    }

    /// Connects to the Shell's Wayland display `displayName` (default `$WAYLAND_DISPLAY`), finds
    /// the Shell on the session bus, checks that it runs the extension, and listens for it.
    public init(
        displayName: String?, loop: MainLoop, idleThreshold: Duration, environment: [String: String]
    ) throws {
        connection = try WaylandConnection(displayName: displayName)
        self.idleThreshold = idleThreshold
        let bus = try Self.sessionBus()
        defer { bus.close() }
        guard let shell = bus.owner(of: "org.gnome.Shell"), let shellPID = Self.processID(of: shell, on: bus) else {
            throw Problem.noShell
        }
        let state = try Self.extensionState(on: bus)
        guard state == "enabled" else { throw Problem.extensionOff(state) }
        guard let path = Self.personalSocket(environment: environment) else {
            throw ShellLink.Failure(description: "no runtime folder ($XDG_RUNTIME_DIR) for the Shell's socket")
        }
        let folder = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(
            atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        link = try ShellLink(
            path: path, mode: 0o600, loop: loop,
            greeting: ["idle-after": Int(max(1, idleThreshold / .milliseconds(1)))],
            isShell: { $0 == shellPID })
    }

    /// Whether GNOME Shell runs the session: it owns `org.gnome.Shell` on the session bus.
    public static func isRunning() -> Bool {
        guard let bus = try? sessionBus() else { return false }
        defer { bus.close() }
        return bus.owner(of: "org.gnome.Shell") != nil
    }

    public var name: String { connection.displayName }
    public var focusSource: String { "GNOME Shell's Screenward extension, idle from the Shell's idle monitor" }

    public func onConnectionLost(_ handler: @escaping () -> Void) {
        connection.onConnectionLost { [link] in
            link.stop()
            handler()
        }
    }

    public func start(focus: @escaping (FocusObservation) -> Void, presence: @escaping (Presence.Evidence) -> Void) {
        var first = true
        link.start(
            connected: { [unowned self] in
                trace?("gnome-shell: the extension is connected")
                if !shield.isEmpty { link.send(["shield": shield]) }
            },
            closed: { [unowned self] in
                // Nothing is known of the focus until the Shell is back.
                reported = nil
                focus(FocusObservation(window: nil, facts: nil, time: timeSource.now(), cause: .activeWindowChanged))
            },
            message: { [unowned self] message in
                switch message {
                case .focused(let pid, let wmClass, let appID, let title, let id):
                    let cause: FocusObservation.Cause =
                        first ? .initial : reported == id ? .windowPropertiesChanged : .activeWindowChanged
                    first = false
                    reported = id
                    trace?("gnome-shell: \(wmClass) (pid \(pid)) has the focus")
                    focus(observation(pid: pid, wmClass: wmClass, appID: appID, title: title, id: id, cause: cause))
                case .idle(let idle):
                    let change: IdleNotification.Change = idle ? .idled : .resumed
                    presence(
                        change.evidence(threshold: idleThreshold, clock: timeSource) { [unowned self] in trace?($0) })
                case .shown(let size): onShieldShown?(size)
                case .pressed(let action): onShieldPressed?(action)
                case .failed(let why): trace?("gnome-shell: the shield could not be drawn: \(why)")
                }
            })
    }

    /// Asks the extension to draw `json` (a resolved shield) over everything, or to take the
    /// shield down (empty).
    public func showShield(_ json: String) {
        shield = json
        link.send(["shield": json])
    }

    /// Closes the link: the extension takes down any shield it drew for this agent.
    public func stop() { link.stop() }

    private func observation(
        pid: Int32, wmClass: String, appID: String, title: String, id: String, cause: FocusObservation.Cause
    ) -> FocusObservation {
        let time = timeSource.now()
        guard let number = UInt(id), number > 0 else {
            return FocusObservation(window: nil, facts: nil, time: time, cause: cause)
        }
        // Mutter's class of a Wayland window is its app_id; a sandboxed app's id is read from
        // its process (Flatpak's file in its root), as on X11.
        let facts = WindowFacts(
            windowID: number, appID: wmClass.isEmpty ? nil : wmClass, title: title, pid: pid > 0 ? pid : nil)
        return FocusObservation(window: WindowID(number), facts: facts, time: time, cause: cause)
    }

    /// The extension's state, as the Shell says (`org.gnome.Shell.Extensions`): "enabled" when
    /// it runs.
    static func extensionState(on bus: SessionBusEndpoint) throws -> String {
        let reply = try bus.call(
            destination: "org.gnome.Shell", path: "/org/gnome/Shell", interface: "org.gnome.Shell.Extensions",
            method: "GetExtensionInfo", [g_variant_new_string(extensionUUID)])
        guard let info = reply.child(0), let state = info.value(forKey: "state")?.double else {
            return "not installed"
        }
        // The Shell's ExtensionState: 1 enabled, 2 disabled, 3 error, 4 out of date, 6 initialized.
        switch Int(state) {
        case 1: return "enabled"
        case 2: return "disabled"
        case 3: return "in error"
        case 4: return "made for another version of GNOME Shell"
        default: return "state \(Int(state))"
        }
    }

    /// The session bus, to find the Shell and ask it of its extensions (nothing is exported).
    private static func sessionBus() throws -> SessionBusEndpoint {
        try SessionBusEndpoint(
            interface: "org.screenward.Agent", path: "/org/screenward/Agent",
            introspection: #"<node><interface name="org.screenward.Agent"/></node>"#)
    }

    /// The process of the bus connection `name` (the bus's word: its peer's credentials).
    static func processID(of name: String, on bus: SessionBusEndpoint) -> Int32? {
        let reply = try? bus.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            method: "GetConnectionUnixProcessID", [g_variant_new_string(name)])
        return reply?.child(0)?.uint32.map { Int32(bitPattern: $0) }
    }
}
