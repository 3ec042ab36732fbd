import CWayland
import Glibc
import SessionDisplay

/// Every toplevel of a wlroots compositor (`zwlr_foreign_toplevel_manager_v1`): its `app_id`,
/// title and whether it is activated (has the focus), each numbered by this watcher. The
/// compositor sends a toplevel's changes as a batch closed by `done`; what a batch changed is
/// applied at its `done`, so a toplevel is never seen half-changed.
public final class ForeignToplevels {
    /// One toplevel as its last `done` left it.
    public struct Toplevel: Sendable, Equatable {
        public let window: WindowID
        public var appID: String?
        public var title: String?
        public var activated = false
        public var fullscreen = false
    }

    private let connection: WaylandConnection
    private let manager: OpaquePointer
    private var handles: [OpaquePointer: Toplevel] = [:]
    /// What a batch set, until its `done`.
    private var pending: [OpaquePointer: Toplevel] = [:]
    private var nextNumber: UInt = 1
    private var changed: () -> Void = {}
    /// Whether the compositor said it sends no more (it stopped, or unbinds the protocol).
    public private(set) var finished = false

    /// Binds the compositor's toplevel manager; throws when it offers none (GNOME Shell and
    /// KWin do not).
    public init(connection: WaylandConnection) throws {
        guard let global = connection.global("zwlr_foreign_toplevel_manager_v1") else {
            throw WaylandError.missingProtocol(
                "zwlr_foreign_toplevel_manager_v1 (wlroots' foreign toplevels)", compositor: connection.displayName)
        }
        self.connection = connection
        manager = connection.bind(global, interface: sw_toplevel_manager_interface(), version: 3)
    }

    /// Starts listening; `changed` runs after each batch the compositor closed (`done`), and when
    /// a toplevel closes.
    public func start(_ changed: @escaping () -> Void) {
        self.changed = changed
        _ = zwlr_foreign_toplevel_manager_v1_add_listener(
            manager, managerListener, Unmanaged.passUnretained(self).toOpaque())
    }

    /// The toplevels, by number.
    public var toplevels: [Toplevel] { Array(handles.values) }

    /// The activated toplevel, if one is. A compositor activates one per seat.
    public var activated: Toplevel? { handles.values.first { $0.activated } }

    /// Asks the compositor to close `window` (as its close button would).
    public func close(_ window: WindowID) {
        guard let handle = handles.first(where: { $0.value.window == window })?.key else { return }
        zwlr_foreign_toplevel_handle_v1_close(handle)
        connection.flush()
    }

    // MARK: Events

    fileprivate func added(_ handle: OpaquePointer) {
        let toplevel = Toplevel(window: WindowID(nextNumber))
        nextNumber += 1
        pending[handle] = toplevel
        _ = zwlr_foreign_toplevel_handle_v1_add_listener(
            handle, handleListener, Unmanaged.passUnretained(self).toOpaque())
    }

    fileprivate func update(_ handle: OpaquePointer, _ change: (inout Toplevel) -> Void) {
        guard var toplevel = pending[handle] ?? handles[handle] else { return }
        change(&toplevel)
        pending[handle] = toplevel
    }

    fileprivate func done(_ handle: OpaquePointer) {
        guard let toplevel = pending.removeValue(forKey: handle) else { return }
        handles[handle] = toplevel
        changed()
    }

    fileprivate func closed(_ handle: OpaquePointer) {
        pending[handle] = nil
        handles[handle] = nil
        zwlr_foreign_toplevel_handle_v1_destroy(handle)
        changed()
    }

    fileprivate func managerFinished() {
        finished = true
        changed()
    }
}

private func watcher(_ data: UnsafeMutableRawPointer?) -> ForeignToplevels {
    Unmanaged<ForeignToplevels>.fromOpaque(data!).takeUnretainedValue()
}

/// A compositor's text, bounded and made valid UTF-8 (a client names itself).
private func text(_ pointer: UnsafePointer<CChar>?) -> String? {
    guard let pointer else { return nil }
    let value = String(decoding: UnsafeRawBufferPointer(start: pointer, count: strnlen(pointer, 4096)), as: UTF8.self)
    return value.isEmpty ? nil : value
}

nonisolated(unsafe) private let managerListener = Listener.make(
    zwlr_foreign_toplevel_manager_v1_listener(
        toplevel: { data, _, handle in watcher(data).added(handle!) },
        finished: { data, _ in watcher(data).managerFinished() }))

nonisolated(unsafe) private let handleListener = Listener.make(
    zwlr_foreign_toplevel_handle_v1_listener(
        title: { data, handle, title in watcher(data).update(handle!) { $0.title = text(title) } },
        app_id: { data, handle, appID in watcher(data).update(handle!) { $0.appID = text(appID) } },
        output_enter: { _, _, _ in },
        output_leave: { _, _, _ in },
        state: { data, handle, states in
            var activated = false
            var fullscreen = false
            if let states, let values = states.pointee.data {
                let count = states.pointee.size / MemoryLayout<UInt32>.stride
                for state in UnsafeBufferPointer(start: values.assumingMemoryBound(to: UInt32.self), count: count) {
                    if state == ZWLR_FOREIGN_TOPLEVEL_HANDLE_V1_STATE_ACTIVATED.rawValue { activated = true }
                    if state == ZWLR_FOREIGN_TOPLEVEL_HANDLE_V1_STATE_FULLSCREEN.rawValue { fullscreen = true }
                }
            }
            watcher(data).update(handle!) {
                $0.activated = activated
                $0.fullscreen = fullscreen
            }
        },
        done: { data, handle in watcher(data).done(handle!) },
        closed: { data, handle in watcher(data).closed(handle!) },
        parent: { _, _, _ in }))
