import Foundation
import GLibRuntime
import X11Session
import XCTest

/// The engine's deadline timer: a timerfd on the wall clock, carried by the GLib loop.
final class WallClockTimerTests: XCTestCase {
    func testFiresAtTheWallClockDeadlineAndCanBeMovedOrDisarmed() throws {
        let loop = MainLoop()
        var wakes: [(WallClockTimer.Wake, Date)] = []
        let timer = try WallClockTimer { wake in wakes.append((wake, Date())) }

        let deadline = Date().addingTimeInterval(0.2)
        timer.arm(at: deadline)
        XCTAssertTrue(loop.iterate(until: { !wakes.isEmpty }, timeout: .seconds(2)))
        XCTAssertEqual(wakes.first?.0, .deadline)
        let lateness = wakes[0].1.timeIntervalSince(deadline)
        XCTAssertGreaterThanOrEqual(lateness, 0)
        XCTAssertLessThan(lateness, 0.1)

        // Moved later, then disarmed: nothing fires.
        wakes.removeAll()
        timer.arm(at: Date().addingTimeInterval(0.1))
        timer.arm(at: nil)
        XCTAssertFalse(loop.iterate(until: { !wakes.isEmpty }, timeout: .milliseconds(300)))

        // A deadline already past fires at once.
        timer.arm(at: Date().addingTimeInterval(-5))
        XCTAssertTrue(loop.iterate(until: { !wakes.isEmpty }, timeout: .seconds(1)))
    }
}
