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
        package init(sourceID: guint) { self.sourceID = sourceID }
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

    /// What a descriptor watched by `watch(descriptor:)` has to say.
    public enum DescriptorReady: Sendable {
        /// There is something to read.
        case readable
        /// The other end hung up, or the descriptor failed: the watch ends.
        case closed
    }

    /// Calls `action` on the loop each time `descriptor` has something to read, and once when
    /// it is closed at the other end (a display server's or a compositor's connection). The
    /// descriptor stays the caller's to close, after cancelling the registration. `first`: its
    /// news goes before whatever else is ready at the same moment (a compositor gone is seen
    /// here before GTK's own connection to it, which ends the process at once).
    @discardableResult
    public func watch(descriptor: Int32, first: Bool = false, _ action: @escaping (DescriptorReady) -> Void)
        -> Registration
    {
        let box = DescriptorBox(action)
        let id = g_unix_fd_add_full(
            first ? G_PRIORITY_HIGH : G_PRIORITY_DEFAULT, descriptor,
            GIOCondition(G_IO_IN.rawValue | G_IO_HUP.rawValue | G_IO_ERR.rawValue),
            descriptorReady, Unmanaged.passRetained(box).toOpaque(),
            { Unmanaged<DescriptorBox>.fromOpaque($0!).release() })
        return Registration(sourceID: id)
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

    /// Runs what is ready on the default context, without waiting (for a test that waits in
    /// its own way on the thread the loop's work belongs to).
    public static func runPending() {
        while g_main_context_iteration(nil, 0) != 0 {}
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

private final class DescriptorBox {
    let action: (MainLoop.DescriptorReady) -> Void
    init(_ action: @escaping (MainLoop.DescriptorReady) -> Void) { self.action = action }
}

private let descriptorReady: GUnixFDSourceFunc = { _, condition, data in
    let box = Unmanaged<DescriptorBox>.fromOpaque(data!).takeUnretainedValue()
    // Read what is there first: a peer may write its last words and hang up in one go.
    if condition.rawValue & G_IO_IN.rawValue != 0 { box.action(.readable) }
    guard condition.rawValue & (G_IO_HUP.rawValue | G_IO_ERR.rawValue) == 0 else {
        box.action(.closed)
        return 0  // G_SOURCE_REMOVE
    }
    return 1  // G_SOURCE_CONTINUE
}

private let releaseBox: GDestroyNotify = { data in
    Unmanaged<CallbackBox>.fromOpaque(data!).release()
}

/// The one way onto the loop from another thread (a socket's, a process watcher's, a D-Bus
/// reply's): items posted from any thread are handed to `receive` on the loop's thread,
/// all those waiting at once, in the order they were posted. Posts that come while a
/// hand-over is pending join it, so a burst costs the loop one wakeup.
public final class LoopMailbox<Item: Sendable>: @unchecked Sendable {
    // `receive` is only ever called on the loop's thread, by GLib's idle dispatch; the
    // items are the only state threads share, behind their own lock.
    private let receive: ([Item]) -> Void
    private let items = Mutex<(waiting: [Item], wakeupPending: Bool)>(([], false))

    public init(_ receive: @escaping ([Item]) -> Void) {
        self.receive = receive
    }

    /// From any thread.
    public func post(_ item: Item) {
        let wake = items.withLock { items in
            items.waiting.append(item)
            defer { items.wakeupPending = true }
            return !items.wakeupPending
        }
        guard wake else { return }
        let box = CallbackBox { [self] in
            let taken = items.withLock { items in
                defer { items = ([], false) }
                return items.waiting
            }
            receive(taken)
        }
        // g_idle_add_full is thread-safe: it adds to the default context and wakes it.
        g_idle_add_full(G_PRIORITY_DEFAULT, fireOnce, Unmanaged.passRetained(box).toOpaque(), releaseBox)
    }
}

extension LoopMailbox where Item == Void {
    /// Asks for one run of the loop's side ("something changed: look again").
    public func post() { post(()) }

    /// A mailbox that only says "look again": `action` runs once for however many posts
    /// came before it ran.
    public convenience init(_ action: @escaping () -> Void) {
        self.init { (_: [Void]) in action() }
    }
}
