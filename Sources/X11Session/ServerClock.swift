import Glibc
import ScreenwardCore
import SessionDisplay

/// Places X server timestamps (milliseconds, 32 bits, wrapping every 49.7 days) on
/// the local clocks.
///
/// Xorg stamps events from CLOCK_MONOTONIC, as `SuspendingClock` reads it here, so
/// server time and local monotonic time differ by a constant. Every event seen
/// bounds that constant from one side (an event cannot arrive before it happened);
/// the tightest bound so far is the estimate, accurate to the fastest delivery.
public struct ServerClock {
    private var origin: SuspendingClock.Instant?
    /// Local milliseconds minus server milliseconds, the smallest seen.
    private var offset: Double?
    /// Server time extended past the 32-bit wrap.
    private var lastServerTime: UInt32 = 0
    private var wraps: Int64 = 0
    private var hasStamp = false
    /// The server's clock is known to be this machine's monotonic clock: the offset is
    /// exact, not an estimate that later events tighten.
    public private(set) var isPinned = false

    public init() {}

    /// The largest age believed for an event; beyond it the stamp is not trusted
    /// (a server whose clock is not ours, or a stamp from a confused client).
    public static let maximumEventAge: Duration = .seconds(5)

    /// Sets the offset from a stamp known to have been made at `moment`; later
    /// events only ever lower it (they cannot arrive before they happened).
    public mutating func calibrate(serverTime: ServerTime, at moment: ClockReading) {
        let origin = self.origin ?? moment.monotonic
        self.origin = origin
        offset = origin.duration(to: moment.monotonic).milliseconds - extended(serverTime)
    }

    /// How long before the local monotonic milliseconds `monotonicMilliseconds` (CLOCK_MONOTONIC
    /// since boot) the millisecond that clock stamps as `serverTime` began, for a server on
    /// that clock: the stamp is its milliseconds modulo 2^32, so within ±24 days of the stamp.
    public static func millisecondsSince(_ serverTime: ServerTime, atMonotonic monotonicMilliseconds: Double) -> Double
    {
        let difference = (monotonicMilliseconds - Double(serverTime.rawValue)).truncatingRemainder(
            dividingBy: 4_294_967_296)
        return difference < -2_147_483_648 ? difference + 4_294_967_296 : difference
    }

    /// Whether `serverTime`, read between the local monotonic milliseconds `before` and
    /// `after` (CLOCK_MONOTONIC since boot), is that clock's own reading, truncated: the
    /// server runs on this machine and stamps from CLOCK_MONOTONIC (Xorg and Xvfb do).
    public static func isMonotonicClock(_ serverTime: ServerTime, between before: Double, and after: Double) -> Bool {
        // The stamp was made at some s in [before, after], and is floor(s) modulo 2^32.
        millisecondsSince(serverTime, atMonotonic: before) < 1 && millisecondsSince(serverTime, atMonotonic: after) >= 0
    }

    /// Fixes the offset for a server whose clock is the local monotonic clock
    /// (`isMonotonicClock`): `serverTime` was stamped when that clock read `monotonicMilliseconds`
    /// (about `moment`). Each stamp T is then placed in the middle of the millisecond the
    /// server truncated, [T, T+1) of that clock, whatever events later arrive: an event
    /// read within that half millisecond is placed a moment after it was read.
    public mutating func pin(serverTime: ServerTime, monotonicMilliseconds: Double, at moment: ClockReading) {
        let origin = self.origin ?? moment.monotonic
        self.origin = origin
        let sinceStamp = Self.millisecondsSince(serverTime, atMonotonic: monotonicMilliseconds)
        // The stamp's whole millisecond began `sinceStamp` before `moment`.
        offset = origin.duration(to: moment.monotonic).milliseconds - sinceStamp - extended(serverTime) + 0.5
        isPinned = true
    }

    /// Learns from an event stamped `serverTime` that arrived at `now`.
    public mutating func observe(serverTime: ServerTime, arrivedAt now: ClockReading) {
        let origin = self.origin ?? now.monotonic
        self.origin = origin
        let local = origin.duration(to: now.monotonic).milliseconds
        let candidate = local - extended(serverTime)
        guard !isPinned else { return }
        if offset == nil || candidate < offset! { offset = candidate }
    }

    /// When the event stamped `serverTime` happened, as a reading derived from `now`.
    public mutating func reading(forServerTime serverTime: ServerTime, now: ClockReading) -> ClockReading {
        observe(serverTime: serverTime, arrivedAt: now)
        return now.earlier(by: age(ofServerTime: serverTime, now: now))
    }

    /// The calibration is good to about a millisecond, so an event just handled
    /// can seem to lie that far in the future; such small negative ages are kept
    /// rather than clamped, because clamping would add the handling delay instead.
    public static let calibrationUncertainty: Duration = .milliseconds(2)

    /// How long ago (from `now`) the server time `serverTime` was, within
    /// [-calibrationUncertainty, maximumEventAge].
    public mutating func age(ofServerTime serverTime: ServerTime, now: ClockReading) -> Duration {
        guard let origin, let offset else { return .zero }
        let local = origin.duration(to: now.monotonic).milliseconds
        let happened = extended(serverTime) + offset
        let age = Duration.microseconds(Int64(((local - happened) * 1000).rounded()))
        return min(max(.zero - Self.calibrationUncertainty, age), Self.maximumEventAge)
    }

    private mutating func extended(_ stamp: ServerTime) -> Double {
        let serverTime = stamp.rawValue
        let half = UInt32.max / 2
        var epoch = wraps
        if !hasStamp {
            hasStamp = true
            lastServerTime = serverTime
        } else if serverTime < lastServerTime, lastServerTime - serverTime > half {
            wraps += 1  // the counter wrapped since the last stamp
            epoch = wraps
            lastServerTime = serverTime
        } else if serverTime > lastServerTime, serverTime - lastServerTime > half {
            epoch -= 1  // a late stamp from before the last wrap
        } else if serverTime > lastServerTime {
            lastServerTime = serverTime
        }
        return Double(epoch) * 4_294_967_296 + Double(serverTime)
    }
}

/// This machine's CLOCK_MONOTONIC, in milliseconds since boot: the clock Xorg and Xvfb
/// stamp events from.
public enum MonotonicClock {
    public static func milliseconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) * 1000 + Double(time.tv_nsec) / 1_000_000
    }
}
