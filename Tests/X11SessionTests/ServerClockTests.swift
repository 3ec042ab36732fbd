import ScreenwardCore
import SessionDisplay
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

    func testAServerOnTheMonotonicClockIsRecognisedByItsBracket() {
        XCTAssertTrue(ServerClock.isMonotonicClock(1_000, between: 1_000.2, and: 1_000.4))
        XCTAssertTrue(ServerClock.isMonotonicClock(1_000, between: 999.7, and: 1_000.1))
        XCTAssertFalse(ServerClock.isMonotonicClock(1_000, between: 999.2, and: 999.9), "stamped before the request")
        XCTAssertFalse(ServerClock.isMonotonicClock(1_000, between: 1_001.2, and: 1_001.4), "a millisecond off")
        XCTAssertFalse(ServerClock.isMonotonicClock(1_000, between: 86_400_000, and: 86_400_001), "another clock")
        // The server's 32 bits wrap every 49.7 days of uptime; the local clock does not.
        XCTAssertTrue(ServerClock.isMonotonicClock(5, between: 4_294_967_296 * 2 + 5.5, and: 4_294_967_296 * 2 + 5.9))
    }

    func testAPinnedClockPlacesEachStampInTheMiddleOfItsMillisecondWhateverArrivesLater() {
        let base = SystemTimeSource().now()
        var clock = ServerClock()
        // At `base` the monotonic clock read 2_000.3 ms and the server stamped 2_000.
        clock.pin(serverTime: 2_000, monotonicMilliseconds: 2_000.3, at: base)
        XCTAssertTrue(clock.isPinned)
        let event = clock.reading(forServerTime: 2_040, now: reading(55, base: base))
        // 2_040.5 ms is 40.2 ms after 2_000.3.
        XCTAssertEqual(base.monotonic.duration(to: event.monotonic).milliseconds, 40.2, accuracy: 0.001)
        // An event that seems to arrive before its millisecond's middle does not move the clock.
        clock.observe(serverTime: 2_050, arrivedAt: reading(50, base: base))
        let later = clock.reading(forServerTime: 2_060, now: reading(70, base: base))
        XCTAssertEqual(base.monotonic.duration(to: later.monotonic).milliseconds, 60.2, accuracy: 0.001)
    }

    func testAPinnedStampReadWithinItsMillisecondIsPlacedInItsMiddleAllTheSame() {
        let base = SystemTimeSource().now()
        var clock = ServerClock()
        clock.pin(serverTime: 2_000, monotonicMilliseconds: 2_000.3, at: base)
        // Stamped 3_000 and read when the clock reads 3_000.2: placed at 3_000.5 all the same,
        // as anyone reading the server's record places it.
        let event = clock.reading(forServerTime: 3_000, now: reading(1_000, base: base).earlier(by: .microseconds(100)))
        XCTAssertEqual(base.monotonic.duration(to: event.monotonic).milliseconds, 1_000.2, accuracy: 0.001)
    }
}
