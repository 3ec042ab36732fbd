import CGLib
import ScreenwardCore
import SessionDisplay

/// No input for a threshold, as Mutter (GNOME Shell's compositor) tells it over the session bus
/// (`org.gnome.Mutter.IdleMonitor`): a watch that fires once the seat was idle that long, and
/// one that fires at the next input. Mutter offers no Wayland idle protocol a client may use.
final class MutterIdle {
    private static let name = "org.gnome.Mutter.IdleMonitor"
    private static let path = "/org/gnome/Mutter/IdleMonitor/Core"
    private let endpoint: SessionBusEndpoint
    let threshold: Duration
    private var idleWatch: UInt32?
    private var activeWatch: UInt32?
    private var handler: (IdleNotification.Change) -> Void = { _ in }

    init(endpoint: SessionBusEndpoint, threshold: Duration) throws {
        guard endpoint.owner(of: Self.name) != nil else {
            throw SessionBusEndpoint.Problem.failed("Mutter's idle monitor (\(Self.name)) is not on the session bus")
        }
        self.endpoint = endpoint
        self.threshold = threshold
    }

    func start(_ handler: @escaping (IdleNotification.Change) -> Void) throws {
        self.handler = handler
        endpoint.subscribe(sender: Self.name, interface: Self.name, member: "WatchFired", path: Self.path) {
            [unowned self] values in
            guard let id = values.first?.uint32 else { return }
            fired(id)
        }
        let milliseconds = guint64(max(1, threshold / .milliseconds(1)))
        idleWatch = try endpoint.call(
            destination: Self.name, path: Self.path, interface: Self.name, method: "AddIdleWatch",
            [g_variant_new_uint64(milliseconds)]
        ).child(0)?.uint32
    }

    private func fired(_ id: UInt32) {
        if id == idleWatch {
            handler(.idled)
            // Mutter's user-active watch fires once, at the next input.
            activeWatch = try? endpoint.call(
                destination: Self.name, path: Self.path, interface: Self.name, method: "AddUserActiveWatch", []
            ).child(0)?.uint32
        } else if id == activeWatch {
            activeWatch = nil
            handler(.resumed)
        }
    }
}
