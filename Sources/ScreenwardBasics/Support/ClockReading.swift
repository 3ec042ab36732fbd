import Foundation

/// One reading of the three clocks the accountant needs, taken at the same moment.
///
/// - `wall` places usage on the calendar, but can jump (NTP, a person changing it).
/// - `monotonic` (`SuspendingClock`, CLOCK_MONOTONIC on Linux) measures durations;
///   it stops while the machine is suspended, as the X server's timestamps do.
/// - `continuous` (`ContinuousClock`, CLOCK_BOOTTIME) keeps running in suspend, so
///   the gap between the two reveals a suspend even without logind.
public struct ClockReading: Sendable, Equatable {
    public var wall: Date
    public var monotonic: SuspendingClock.Instant
    public var continuous: ContinuousClock.Instant

    public init(wall: Date, monotonic: SuspendingClock.Instant, continuous: ContinuousClock.Instant) {
        self.wall = wall
        self.monotonic = monotonic
        self.continuous = continuous
    }

    /// The reading `interval` before this one, assuming no suspend or clock jump in
    /// between (used for events the X server stamped a few milliseconds ago).
    public func earlier(by interval: Duration) -> ClockReading {
        ClockReading(
            wall: wall.addingTimeInterval(-interval.seconds),
            monotonic: monotonic - interval,
            continuous: continuous - interval)
    }
}

/// Where readings come from: the system, or a test's hand-driven clock.
public protocol TimeSource: Sendable {
    func now() -> ClockReading
}

public struct SystemTimeSource: TimeSource {
    public init() {}
    public func now() -> ClockReading {
        ClockReading(wall: Date(), monotonic: SuspendingClock().now, continuous: ContinuousClock().now)
    }
}

extension Duration {
    /// The duration in seconds, as a Double.
    public var seconds: Double {
        let (s, attoseconds) = components
        return Double(s) + Double(attoseconds) / 1e18
    }

    public var milliseconds: Double { seconds * 1000 }
}
