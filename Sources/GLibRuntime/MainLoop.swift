import CGLib
import Foundation
import ScreenwardCore
import Synchronization

/// The one GLib main loop that carries everything: X events, timers and signals
/// (GTK's `gtk_main` runs the same default context, so the shield joins it later).
///
/// Dispatch's main queue never runs inside a GLib loop; never rely on it here.
public final class MainLoop {
    private let loop: OpaquePointer

    public init() {
        loop = g_main_loop_new(nil, 0)
    }

    deinit { g_main_loop_unref(loop) }

    public func run() { g_main_loop_run(loop) }
    public func quit() { g_main_loop_quit(loop) }

    /// A source added to the loop; `cancel()` removes it (idempotent).
    public final class Registration {
        fileprivate var sourceID: guint
        init(sourceID: guint) { self.sourceID = sourceID }
        public func cancel() {
            guard sourceID != 0 else { return }
            g_source_remove(sourceID)
            sourceID = 0
        }
        public var isActive: Bool { sourceID != 0 }
    }

    /// Calls `action` once after `delay` (millisecond resolution).
    @discardableResult
    public func schedule(after delay: Duration, _ action: @escaping () -> Void) -> Registration {
        let milliseconds = guint(max(0, min(Double(UInt32.max), (delay.milliseconds).rounded(.up))))
        let box = CallbackBox(action)
        let registration = Registration(sourceID: 0)
        box.onFire = { registration.sourceID = 0 }
        registration.sourceID = g_timeout_add_full(
            G_PRIORITY_DEFAULT, milliseconds, fireOnce, Unmanaged.passRetained(box).toOpaque(), releaseBox)
        return registration
    }

    /// Calls `action` every `seconds` seconds; GLib aligns such timers process-wide
    /// so they cost one wakeup per second together.
    @discardableResult
    public func repeatEvery(seconds: UInt32, _ action: @escaping () -> Void) -> Registration {
        let box = CallbackBox(action)
        return Registration(
            sourceID: g_timeout_add_seconds_full(
                G_PRIORITY_DEFAULT, seconds, fireRepeating, Unmanaged.passRetained(box).toOpaque(), releaseBox))
    }

    /// Calls `action` every `interval` (millisecond resolution), not aligned with other timers.
    @discardableResult
    public func repeatEvery(_ interval: Duration, _ action: @escaping () -> Void) -> Registration {
        let milliseconds = guint(max(1, min(Double(UInt32.max), interval.milliseconds.rounded(.up))))
        let box = CallbackBox(action)
        return Registration(
            sourceID: g_timeout_add_full(
                G_PRIORITY_DEFAULT, milliseconds, fireRepeating, Unmanaged.passRetained(box).toOpaque(), releaseBox))
    }

    /// Calls `action` on the loop when the process receives `signal` (SIGTERM, SIGINT, SIGHUP…).
    @discardableResult
    public func onSignal(_ signal: Int32, _ action: @escaping () -> Void) -> Registration {
        let box = CallbackBox(action)
        return Registration(
            sourceID: g_unix_signal_add_full(
                G_PRIORITY_HIGH, signal, fireRepeating, Unmanaged.passRetained(box).toOpaque(), releaseBox))
    }

    /// Attaches a GSource made elsewhere (the X11 module's, which carries an Xlib connection):
    /// `action` runs at each of its dispatches. The loop holds the source from here on; the
    /// caller's reference is released.
    @discardableResult
    public func attach(source raw: UnsafeMutableRawPointer, _ action: @escaping () -> Void) -> Registration {
        let source = raw.assumingMemoryBound(to: GSource.self)
        let box = CallbackBox(action)
        g_source_set_callback(source, fireRepeating, Unmanaged.passRetained(box).toOpaque(), releaseBox)
        g_source_set_priority(source, G_PRIORITY_DEFAULT)
        let id = g_source_attach(source, nil)
        g_source_unref(source)
        return Registration(sourceID: id)
    }

    /// Runs the loop until `condition` holds or `timeout` passes (for tools and tests).
    /// Returns whether the condition held.
    ///
    /// The condition is checked after every event and at least every `checkingEvery`:
    /// it often reads what no event on this loop announces (pixels on the screen, another
    /// process's log), and a loop with nothing to do would otherwise sleep to the deadline.
    @discardableResult
    public func iterate(until condition: () -> Bool, timeout: Duration, checkingEvery: Duration = .milliseconds(50))
        -> Bool
    {
        let deadline = ContinuousClock.now + timeout
        let wake = schedule(after: timeout) {}
        let poll = repeatEvery(checkingEvery) {}
        defer {
            wake.cancel()
            poll.cancel()
        }
        while !condition() {
            if ContinuousClock.now >= deadline { return false }
            g_main_context_iteration(nil, 1)
        }
        return true
    }
}

private final class CallbackBox {
    let action: () -> Void
    var onFire: (() -> Void)?
    init(_ action: @escaping () -> Void) { self.action = action }
}

private let fireOnce: GSourceFunc = { data in
    let box = Unmanaged<CallbackBox>.fromOpaque(data!).takeUnretainedValue()
    box.onFire?()
    box.action()
    return 0  // G_SOURCE_REMOVE
}

private let fireRepeating: GSourceFunc = { data in
    Unmanaged<CallbackBox>.fromOpaque(data!).takeUnretainedValue().action()
    return 1  // G_SOURCE_CONTINUE
}

private let releaseBox: GDestroyNotify = { data in
    Unmanaged<CallbackBox>.fromOpaque(data!).release()
}

/// Runs an action on the loop's thread when any thread asks (`fire()`): how work
/// that arrives on other threads (client requests) gets back to the one loop.
/// Fires that come while one is pending run the action once.
public final class LoopWakeup: @unchecked Sendable {
    // Only ever called on the loop's thread, by GLib's idle dispatch.
    private let action: () -> Void
    private let pending = Atomic<Bool>(false)

    public init(_ action: @escaping () -> Void) {
        self.action = action
    }

    public func fire() {
        guard pending.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            return
        }
        let box = CallbackBox { [self] in
            pending.store(false, ordering: .releasing)
            action()
        }
        // g_idle_add_full is thread-safe: it adds to the default context and wakes it.
        g_idle_add_full(G_PRIORITY_DEFAULT, fireOnce, Unmanaged.passRetained(box).toOpaque(), releaseBox)
    }
}

/// Items handed from other threads (a socket's, a process watcher's) to a loop, which
/// takes them all when its `LoopWakeup` fires.
public final class Inbox<Item: Sendable>: Sendable {
    private let items = Mutex<[Item]>([])

    public init() {}

    public func put(_ item: Item) { items.withLock { $0.append(item) } }

    public func take() -> [Item] {
        items.withLock { items in
            defer { items.removeAll() }
            return items
        }
    }
}
