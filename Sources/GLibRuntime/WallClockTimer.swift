import CGLib
import Foundation

/// Wakes the loop at a wall-clock instant (a `Date`), the way the monitor engine's
/// deadlines are expressed: unlike a GLib timeout (monotonic), it still fires on
/// time after a suspend, and it reports when someone sets the clock so deadlines can
/// be worked out again. One timer, re-armed for each new deadline.
public final class WallClockTimer {
    public enum Wake { case deadline, clockChanged }

    private let fd: Int32
    private var source: guint = 0
    private let box: WakeBox

    /// - Parameter onWake: called on the loop when the deadline passes or the clock is set.
    public init(onWake: @escaping (Wake) -> Void) throws {
        fd = sw_wall_timer_new()
        guard fd >= 0 else { throw TimerUnavailable(errno: errno) }
        box = WakeBox(fd: fd, onWake: onWake)
        source = g_unix_fd_add_full(
            G_PRIORITY_DEFAULT, fd, G_IO_IN, wallTimerReady, Unmanaged.passRetained(box).toOpaque(),
            { Unmanaged<WakeBox>.fromOpaque($0!).release() })
        // Armed for "never", it still reports clock changes.
        arm(at: nil)
    }

    deinit {
        if source != 0 { g_source_remove(source) }
        close(fd)
    }

    /// Fires once at `date` (at once when it has passed); nil disarms the deadline but
    /// keeps watching for clock changes.
    public func arm(at date: Date?) {
        let nanoseconds: Int64 =
            if let date { max(1, Int64((date.timeIntervalSince1970 * 1e9).rounded(.up))) } else { Int64.max / 2 }
        _ = sw_wall_timer_arm(fd, nanoseconds)
    }
}

public struct TimerUnavailable: Error, CustomStringConvertible {
    public let errno: Int32
    public var description: String { "cannot create a wall-clock timer (timerfd_create failed, errno \(errno))" }
}

private final class WakeBox {
    let fd: Int32
    let onWake: (WallClockTimer.Wake) -> Void
    init(fd: Int32, onWake: @escaping (WallClockTimer.Wake) -> Void) {
        self.fd = fd
        self.onWake = onWake
    }
}

private let wallTimerReady: GUnixFDSourceFunc = { _, _, data in
    let box = Unmanaged<WakeBox>.fromOpaque(data!).takeUnretainedValue()
    switch sw_wall_timer_read(box.fd) {
    case 1: box.onWake(.deadline)
    case 2: box.onWake(.clockChanged)
    default: break
    }
    return 1
}
