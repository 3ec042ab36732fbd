import CGLib
import Foundation
import GLibRuntime
import ScreenwardCore
import SessionDisplay

/// A GNOME Shell session: no Wayland protocol tells a client which window has the focus, and
/// none lets it draw above the others, so Screenward's extension inside the Shell
/// (`data/gnome-shell/`, installed system-wide) does both for the agent over the session bus.
/// The agent owns `org.screenward.ShellAgent`; the extension calls it with each focus change
/// (the window's process as Mutter knows it from the client's socket, its class, sandboxed app
/// id, title and a stable id), and draws the shield the agent sends (`showShield`), telling back
/// when it is drawn and which button was pressed. Only the Shell's own connection is heard.
/// Input idle comes from Mutter's idle monitor on the same bus.
public final class GnomeShellDisplay: DisplayBackend {
    public static let extensionUUID = "screenward@screenward.org"
    static let busName = "org.screenward.ShellAgent"
    static let path = "/org/screenward/ShellAgent"
    public let connection: WaylandConnection
    private let loop: MainLoop
    private let endpoint: SessionBusEndpoint
    private let idle: MutterIdle
    private let shell: String
    public let limitations: [String] = []
    public var trace: ((String) -> Void)?
    public let timeSource: any TimeSource = SystemTimeSource()
    /// The stable id (Mutter's) of the window last reported with the focus.
    private var reported: String?
    /// The extension drew the shield sent last, over its stage (`WIDTHxHEIGHT`).
    public var onShieldShown: ((String) -> Void)?
    /// A button of the shield was pressed (`primaryButtonPressed` or `secondaryButtonPressed`).
    public var onShieldPressed: ((String) -> Void)?

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

    /// Connects to the Shell's Wayland display `displayName` (default `$WAYLAND_DISPLAY`) and
    /// to the session bus, where the Shell runs the extension.
    public init(displayName: String?, loop: MainLoop, idleThreshold: Duration) throws {
        connection = try WaylandConnection(displayName: displayName)
        self.loop = loop
        endpoint = try SessionBusEndpoint(
            interface: Self.busName, path: Self.path, introspection: Self.introspection)
        guard let shell = endpoint.owner(of: "org.gnome.Shell") else { throw Problem.noShell }
        self.shell = shell
        let state = try Self.extensionState(on: endpoint)
        guard state == "enabled" else { throw Problem.extensionOff(state) }
        idle = try MutterIdle(endpoint: endpoint, threshold: idleThreshold)
    }

    /// Whether GNOME Shell runs the session: it owns `org.gnome.Shell` on the session bus.
    public static func isRunning() -> Bool {
        guard
            let endpoint = try? SessionBusEndpoint(
                interface: busName, path: path, introspection: introspection)
        else { return false }
        defer { endpoint.close() }
        return endpoint.owner(of: "org.gnome.Shell") != nil
    }

    public var name: String { connection.displayName }
    public var focusSource: String { "GNOME Shell's Screenward extension, idle from Mutter's idle monitor" }

    public func onConnectionLost(_ handler: @escaping () -> Void) {
        connection.onConnectionLost { [endpoint] in
            endpoint.close()
            handler()
        }
    }

    public func start(focus: @escaping (FocusObservation) -> Void, presence: @escaping (Presence.Evidence) -> Void) {
        connection.attach(to: loop) {}
        do {
            try idle.start { [unowned self, threshold = idle.threshold] change in
                presence(change.evidence(threshold: threshold, clock: timeSource) { [unowned self] in trace?($0) })
            }
        } catch {
            trace?("gnome-shell: no idle: \(error)")
        }
        var first = true
        do {
            try endpoint.export(owning: Self.busName, acceptingFrom: shell) { [unowned self] method, arguments in
                switch method {
                case "Focused":
                    guard arguments.count == 5, let pid = arguments[0].int32 else { return false }
                    let strings = arguments.dropFirst().compactMap(\.string)
                    guard strings.count == 4 else { return false }
                    let cause: FocusObservation.Cause =
                        first ? .initial : reported == strings[3] ? .windowPropertiesChanged : .activeWindowChanged
                    first = false
                    reported = strings[3]
                    trace?("gnome-shell: \(strings[0]) (pid \(pid)) has the focus")
                    focus(
                        observation(
                            pid: pid, wmClass: strings[0], appID: strings[1], title: strings[2],
                            id: strings[3], cause: cause))
                case "Shown": onShieldShown?(arguments.first?.string ?? "")
                case "Pressed":
                    guard let action = arguments.first?.string else { return false }
                    onShieldPressed?(action)
                case "Failed": trace?("gnome-shell: the shield could not be drawn: \(arguments.first?.string ?? "")")
                default: return false
                }
                return true
            }
        } catch {
            trace?("gnome-shell: \(error)")
            focus(FocusObservation(window: nil, facts: nil, time: timeSource.now(), cause: .initial))
        }
    }

    /// Asks the extension to draw `json` (a resolved shield) over everything, or to take the
    /// shield down (empty).
    public func showShield(_ json: String) {
        endpoint.emit("Shield", json)
    }

    /// Leaves the bus: the extension takes down any shield it drew for this agent.
    public func stop() { endpoint.close() }

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
    static func extensionState(on endpoint: SessionBusEndpoint) throws -> String {
        let reply = try endpoint.call(
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

    static let introspection = """
        <node><interface name="\(busName)">\
        <method name="Focused"><arg type="i" direction="in"/><arg type="s" direction="in"/>\
        <arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="s" direction="in"/></method>\
        <method name="Shown"><arg type="s" direction="in"/></method>\
        <method name="Pressed"><arg type="s" direction="in"/></method>\
        <method name="Failed"><arg type="s" direction="in"/></method>\
        <signal name="Shield"><arg type="s"/></signal>\
        </interface></node>
        """
}
