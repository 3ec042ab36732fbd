import ScreenwardCore
import X11Session
import XCTest

final class ServerClockTests: XCTestCase {
    func reading(_ milliseconds: Int64, base: ClockReading) -> ClockReading {
        ClockReading(
            wall: base.wall.addingTimeInterval(Double(milliseconds) / 1000),
            monotonic: base.monotonic + .milliseconds(milliseconds),
            continuous: base.continuous + .milliseconds(milliseconds))
    }

    func testEventsArePlacedByTheirStampsNotByWhenTheyAreRead() {
        let base = SystemTimeSource().now()
        var clock = ServerClock()
        clock.calibrate(serverTime: 1_000, at: reading(0, base: base))
        // An event stamped 40 ms after calibration, read 55 ms after it.
        let event = clock.reading(forServerTime: 1_040, now: reading(55, base: base))
        XCTAssertEqual(base.monotonic.duration(to: event.monotonic).milliseconds, 40, accuracy: 0.001)
    }

    func testTheOffsetOnlyTightensAndStampsSurviveTheWrap() {
        let base = SystemTimeSource().now()
        var clock = ServerClock()
        let nearWrap = ServerTime(rawValue: UInt32.max - 9)
        clock.observe(serverTime: nearWrap, arrivedAt: reading(5, base: base))  // 5 ms delivery
        clock.observe(serverTime: nearWrap, arrivedAt: reading(2, base: base))  // a faster one: 2 ms
        let afterWrap = clock.reading(forServerTime: 20, now: reading(40, base: base))  // 30 ms later, past the wrap
        XCTAssertEqual(base.monotonic.duration(to: afterWrap.monotonic).milliseconds, 32, accuracy: 0.001)
    }

    func testAbsurdStampsAreBounded() {
        let base = SystemTimeSource().now()
        var clock = ServerClock()
        clock.calibrate(serverTime: 500_000, at: reading(0, base: base))
        let now = reading(100, base: base)
        XCTAssertEqual(clock.age(ofServerTime: 1, now: now), ServerClock.maximumEventAge)
        XCTAssertEqual(clock.age(ofServerTime: 600_000, now: now), .zero - ServerClock.calibrationUncertainty)
    }
}
