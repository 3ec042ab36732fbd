import ScreenwardCore

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

    /// Learns from an event stamped `serverTime` that arrived at `now`.
    public mutating func observe(serverTime: ServerTime, arrivedAt now: ClockReading) {
        let origin = self.origin ?? now.monotonic
        self.origin = origin
        let local = origin.duration(to: now.monotonic).milliseconds
        let candidate = local - extended(serverTime)
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
        let age = Duration.milliseconds(Int64((local - happened).rounded()))
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
