import Foundation
import ScreenwardCore

/// A hand-driven clock: time moves only when the test says so, and the test can
/// make the wall clock jump or the machine sleep.
final class ManualTime: TimeSource, @unchecked Sendable {
    private(set) var current: ClockReading

    init(wall: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        current = ClockReading(wall: wall, monotonic: SuspendingClock().now, continuous: ContinuousClock().now)
    }

    func now() -> ClockReading { current }

    /// Ordinary time passing: every clock moves together.
    func advance(_ interval: Duration) {
        current = ClockReading(
            wall: current.wall.addingTimeInterval(interval.seconds), monotonic: current.monotonic + interval,
            continuous: current.continuous + interval)
    }

    /// Someone sets the wall clock; nothing else moves.
    func jumpWall(by seconds: TimeInterval) {
        current.wall = current.wall.addingTimeInterval(seconds)
    }

    /// The machine sleeps: the wall and boot clocks run on, the monotonic one stops.
    func suspend(for interval: Duration) {
        current.wall = current.wall.addingTimeInterval(interval.seconds)
        current.continuous = current.continuous + interval
    }
}
