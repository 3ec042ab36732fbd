import Foundation
import GLibRuntime
import ScreenwardCore
import SessionDisplay

/// A KWin session (Plasma's Wayland compositor): the focus from a KWin script of the agent's
/// (`KWinFocus`), with the process KWin knows for each window (from its client's socket), and
/// input idle from the compositor's idle protocol on a Wayland connection of the agent's own.
public final class KWinDisplay: DisplayBackend {
    public let connection: WaylandConnection
    private let loop: MainLoop
    private let focusReceiver: KWinFocus
    private let idle: IdleNotification
    public let limitations: [String] = []
    public var trace: ((String) -> Void)?
    public let timeSource: any TimeSource = SystemTimeSource()
    /// KWin's window ids, numbered as the agent's windows are.
    private var numbers: [String: WindowID] = [:]
    private var reported: KWinFocus.Activation?

    /// Connects to KWin's Wayland display `displayName` (default `$WAYLAND_DISPLAY`) and to the
    /// session bus, where KWin loads scripts. The script's file goes to `$XDG_RUNTIME_DIR`.
    public init(displayName: String?, loop: MainLoop, idleThreshold: Duration, environment: [String: String]) throws {
        connection = try WaylandConnection(displayName: displayName)
        self.loop = loop
        idle = try IdleNotification(connection: connection, threshold: idleThreshold)
        let folder =
            environment["XDG_RUNTIME_DIR"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory
        focusReceiver = try KWinFocus(scriptFolder: folder)
    }

    public var name: String { connection.displayName }
    public var focusSource: String { "a KWin script, idle from \(idle.source)" }

    public func onConnectionLost(_ handler: @escaping () -> Void) {
        connection.onConnectionLost { [focusReceiver] in
            focusReceiver.stop()
            handler()
        }
    }

    /// Whether KWin runs the session: it owns `org.kde.KWin` on the session bus.
    public static func isRunning() -> Bool {
        (try? KWinFocus.ownerOfKWin()) != nil
    }

    public func start(focus: @escaping (FocusObservation) -> Void, presence: @escaping (Presence.Evidence) -> Void) {
        idle.start(as: presence, clock: timeSource) { [unowned self] line in trace?(line) }
        connection.attach(to: loop) {}
        do {
            var first = true
            try focusReceiver.start { [unowned self] activation in
                guard first || activation != reported else { return }
                let sameWindow = reported?.internalID == activation.internalID
                let cause: FocusObservation.Cause =
                    first ? .initial : sameWindow ? .windowPropertiesChanged : .activeWindowChanged
                first = false
                reported = activation
                trace?("kwin: \(activation.resourceClass) (pid \(activation.pid)) activated")
                focus(observation(of: activation, cause: cause))
            }
        } catch {
            trace?("kwin: \(error)")
            focus(FocusObservation(window: nil, facts: nil, time: timeSource.now(), cause: .initial))
        }
    }

    /// Stops KWin's script (it is unloaded, and its file removed).
    public func stop() { focusReceiver.stop() }

    private func observation(of activation: KWinFocus.Activation, cause: FocusObservation.Cause) -> FocusObservation {
        let time = timeSource.now()
        guard !activation.internalID.isEmpty else {
            return FocusObservation(window: nil, facts: nil, time: time, cause: cause)
        }
        let window = numbers[activation.internalID] ?? WindowID(UInt(numbers.count + 1))
        numbers[activation.internalID] = window
        let facts = WindowFacts(
            windowID: window.rawValue,
            kdeDesktopFile: activation.desktopFileName.isEmpty ? nil : activation.desktopFileName,
            appID: activation.resourceClass.isEmpty ? nil : activation.resourceClass, title: activation.caption,
            pid: activation.pid > 0 ? activation.pid : nil)
        return FocusObservation(window: window, facts: facts, time: time, cause: cause)
    }
}
