import CWayland
import Foundation
import GLibRuntime

public enum WaylandError: Error, CustomStringConvertible {
    case cannotConnect(String, errno: Int32)
    case missingProtocol(String, compositor: String)
    case connectionFailed(String)
    /// The socket is another process's than the compositor's the daemon named.
    case notTheCompositor(String, listener: Int32?, expected: Int32)

    public var description: String {
        switch self {
        case .cannotConnect(let name, let errno):
            "cannot connect to the Wayland display \(name): \(String(cString: strerror(errno)))"
        case .missingProtocol(let interface, let compositor):
            "the Wayland compositor of \(compositor) does not offer \(interface)"
        case .connectionFailed(let name):
            "the Wayland display \(name) closed the connection"
        case .notTheCompositor(let name, let listener, let expected):
            "the Wayland display \(name) is served by process \(listener.map(String.init) ?? "?"), not by the "
                + "session's compositor (\(expected))"
        }
    }
}

/// A connection to a Wayland compositor, read on the main loop: the globals it announces, and
/// its events dispatched as they come. Requests made from an event's handler are sent after it;
/// others call `flush()`.
public final class WaylandConnection {
    /// One global the compositor announced.
    public struct Global: Sendable {
        public let name: UInt32
        public let interface: String
        public let version: UInt32
    }

    /// The socket's name (`wayland-1`), as `WAYLAND_DISPLAY` says it.
    public let displayName: String
    let display: OpaquePointer
    private let registry: OpaquePointer
    private let box: RegistryBox
    private var watch: MainLoop.Registration?
    private var afterEventsPending = false
    private var lost: () -> Void = {}

    /// Connects to `displayName`, or to `$WAYLAND_DISPLAY` (libwayland's own choice) when nil,
    /// and learns the globals. With `compositor`, the process listening must be that one: it is
    /// checked before a word is exchanged (a listener of someone else's might never answer).
    public init(displayName: String?, compositor: Int32? = nil) throws {
        let name = displayName ?? ProcessInfo.processInfo.environment["WAYLAND_DISPLAY"] ?? "wayland-0"
        guard let display = wl_display_connect(name) else { throw WaylandError.cannotConnect(name, errno: errno) }
        if let compositor {
            let listener = SocketPeer.pid(of: wl_display_get_fd(display))
            guard listener == compositor else {
                wl_display_disconnect(display)
                throw WaylandError.notTheCompositor(name, listener: listener, expected: compositor)
            }
        }
        self.displayName = name
        self.display = display
        guard let registry = wl_display_get_registry(display) else {
            wl_display_disconnect(display)
            throw WaylandError.connectionFailed(name)
        }
        self.registry = registry
        box = RegistryBox()
        _ = wl_registry_add_listener(registry, registryListener, Unmanaged.passUnretained(box).toOpaque())
        guard wl_display_roundtrip(display) >= 0 else {
            wl_display_disconnect(display)
            throw WaylandError.connectionFailed(name)
        }
    }

    deinit {
        watch?.cancel()
        wl_display_disconnect(display)
    }

    /// The process listening on the socket connected to: the compositor (`SO_PEERCRED`).
    public var compositorPID: Int32? { SocketPeer.pid(of: wl_display_get_fd(display)) }

    /// The globals announced so far.
    public var globals: [Global] { box.globals }

    /// The newest global of `interface`, if the compositor offers it.
    public func global(_ interface: String) -> Global? {
        box.globals.last { $0.interface == interface }
    }

    /// Binds `global` at `version` (at most what it offers): a new proxy.
    func bind(_ global: Global, interface: UnsafePointer<wl_interface>, version: UInt32) -> OpaquePointer {
        OpaquePointer(wl_registry_bind(registry, global.name, interface, min(version, global.version)))!
    }

    /// Waits until the compositor has answered everything asked so far.
    @discardableResult
    public func roundtrip() -> Bool { wl_display_roundtrip(display) >= 0 }

    public func flush() { _ = wl_display_flush(display) }

    /// Reads and dispatches the compositor's events on `loop`; `afterEvents` runs after each
    /// batch (handlers learn of a whole change at once: a focus moved is one toplevel's
    /// `activated` gone and another's set).
    public func attach(to loop: MainLoop, afterEvents: @escaping () -> Void) {
        flush()
        // First: when the compositor goes, GTK's connection to it ends the process (GDK exits
        // on a lost display) and the session's end must be recorded before.
        watch = loop.watch(descriptor: wl_display_get_fd(display), first: true) { [unowned self] ready in
            switch ready {
            case .readable:
                guard wl_display_dispatch(display) >= 0 else { return connectionLost() }
                flush()
                // What the events lead to may draw with GTK, whose own connection does a round
                // trip to map a window. GDK reads that connection from a source of the loop that
                // readies a read in GLib's prepare step and finishes it in its check step, which
                // GLib skips for lower priorities while this one is ready: a round trip from
                // here would wait forever for that read. So the rest runs a moment later, at
                // the loop's default priority, after GDK's check.
                guard !afterEventsPending else { return }
                afterEventsPending = true
                loop.schedule(after: .zero) { [weak self] in
                    guard let self else { return }
                    afterEventsPending = false
                    afterEvents()
                    flush()
                }
            case .closed:
                connectionLost()
            }
        }
    }

    /// `handler` runs once when the compositor closes the connection (the session ended).
    public func onConnectionLost(_ handler: @escaping () -> Void) { lost = handler }

    private func connectionLost() {
        watch?.cancel()
        watch = nil
        let handler = lost
        lost = {}
        handler()
    }
}

private final class RegistryBox {
    var globals: [WaylandConnection.Global] = []
}

/// A listener lives as long as its proxy; libwayland keeps its address. One for all, made once.
nonisolated(unsafe) private let registryListener = Listener.make(
    wl_registry_listener(
        global: { data, _, name, interface, version in
            let box = Unmanaged<RegistryBox>.fromOpaque(data!).takeUnretainedValue()
            box.globals.append(.init(name: name, interface: String(cString: interface!), version: version))
        },
        global_remove: { data, _, name in
            let box = Unmanaged<RegistryBox>.fromOpaque(data!).takeUnretainedValue()
            box.globals.removeAll { $0.name == name }
        }))

/// Listeners' tables at addresses that never change: libwayland keeps the address it is given.
enum Listener {
    static func make<Table>(_ table: Table) -> UnsafeMutablePointer<Table> {
        let pointer = UnsafeMutablePointer<Table>.allocate(capacity: 1)
        pointer.initialize(to: table)
        return pointer
    }
}
