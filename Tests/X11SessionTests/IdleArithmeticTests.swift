import ScreenwardCore
import X11Session
import XCTest

final class IdleArithmeticTests: XCTestCase {
    let now = SystemTimeSource().now()

    func testBecomingIdleDatesTheLastInputBackByTheCounter() throws {
        let transition = IdleWatcher.transition(
            .becameIdle, counterValue: .milliseconds(120_004), at: now, isIdle: false)
        guard case .becameIdle(let lastInput) = transition else { return XCTFail("\(String(describing: transition))") }
        XCTAssertEqual(lastInput.monotonic.duration(to: now.monotonic), .milliseconds(120_004))
        XCTAssertEqual(now.wall.timeIntervalSince(lastInput.wall), 120.004, accuracy: 1e-6)
    }

    func testReturningIsDatedAtTheEvent() throws {
        guard
            case .returned(let at) = IdleWatcher.transition(
                .returned, counterValue: .milliseconds(3), at: now, isIdle: true)
        else {
            return XCTFail()
        }
        XCTAssertEqual(at, now)
    }

    func testRepeatedOrOutOfOrderAlarmsReportNothing() {
        XCTAssertNil(IdleWatcher.transition(.becameIdle, counterValue: .seconds(5), at: now, isIdle: true))
        XCTAssertNil(IdleWatcher.transition(.returned, counterValue: .zero, at: now, isIdle: false))
    }

    func testANegativeCounterIsTreatedAsNoIdleTime() {
        guard
            case .becameIdle(let lastInput) = IdleWatcher.transition(
                .becameIdle, counterValue: .milliseconds(-7), at: now, isIdle: false)
        else {
            return XCTFail()
        }
        XCTAssertEqual(lastInput, now)
    }
}
