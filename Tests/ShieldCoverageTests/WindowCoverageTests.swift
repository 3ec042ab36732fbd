import ScreenwardCore
import SessionDisplay
import ShieldCoverage
import X11Session
import XCTest

/// What becomes of a window when the stores change, without an X server.
final class WindowCoverageTests: XCTestCase {
    private typealias Coverage = WindowCoverage<String>

    private let window = ClientWindow(
        id: WindowID(0x100), facts: WindowFacts(windowID: 0x100), pid: 42,
        frame: ScreenRect(x: 0, y: 0, width: 300, height: 200),
        desktop: 0, isViewable: true, isFullscreen: false)

    private func verdict(
        blocked: Bool = false, decision: String?, _ current: Coverage.Current, active: Bool = true
    ) -> Coverage.Verdict {
        Coverage.verdict(for: window, blocked: blocked, decision: decision, current: current, windowIsActive: active)
    }

    func testAShieldedWindowIsCoveredAndAFreedOneUncovered() {
        XCTAssertEqual(verdict(decision: "evening", .uncovered), .cover("evening"))
        XCTAssertEqual(
            verdict(decision: nil, .covered(before: window, decision: "evening", shieldVisible: true)), .uncover)
        XCTAssertEqual(verdict(decision: nil, .uncovered), .uncover, "nothing to uncover is no harm")
    }

    func testBlockingWinsOverShieldingAndAClosingWindowIsLeftAlone() {
        XCTAssertEqual(verdict(blocked: true, decision: "evening", .uncovered), .block)
        XCTAssertEqual(
            verdict(
                blocked: true, decision: "evening", .covered(before: window, decision: "evening", shieldVisible: true)),
            .block, "a covered window whose app becomes blocked loses its shield and is closed")
        XCTAssertEqual(verdict(decision: "evening", .closing), .leave, "being closed: not covered meanwhile")
        XCTAssertEqual(verdict(blocked: true, decision: nil, .closing), .block)
    }

    func testACoveredWindowsShieldFollowsItUnderTheDecisionNow() {
        var moved = window
        moved.frame = ScreenRect(x: 5, y: 5, width: 300, height: 200)
        let current = Coverage.Current.covered(before: moved, decision: "evening", shieldVisible: true)
        XCTAssertEqual(verdict(decision: "downtime", current), .follow([.redraw, .cover(window.frame)], "downtime"))
        XCTAssertEqual(
            verdict(decision: "evening", .covered(before: window, decision: "evening", shieldVisible: false)),
            .follow([.show], "evening"))
    }
}

/// When a keyboard grab over a shield closes the app, with instants chosen by the test.
final class KeyboardGrabChecksTests: XCTestCase {
    private let start = ContinuousClock.now
    private let patience = KeyboardGrabChecks<Int>.patience

    func testAGrabHeldForThePatienceClosesTheShieldedAppOnce() {
        var checks = KeyboardGrabChecks<Int>()
        XCTAssertNil(checks.deadline)
        checks.grab(over: 1, held: true, at: start)
        checks.grab(over: 2, held: true, at: start + .milliseconds(100))
        XCTAssertEqual(checks.deadline, start + patience)
        XCTAssertEqual(
            checks.due(at: start + patience - .milliseconds(1), shielded: { _ in true }, holdIsOwnGrab: false), [])
        XCTAssertEqual(checks.due(at: start + patience, shielded: { _ in true }, holdIsOwnGrab: false), [1])
        XCTAssertEqual(checks.deadline, start + .milliseconds(100) + patience)
        XCTAssertEqual(checks.due(at: start + .seconds(1), shielded: { _ in true }, holdIsOwnGrab: false), [2])
        XCTAssertEqual(checks.due(at: start + .seconds(2), shielded: { _ in true }, holdIsOwnGrab: false), [])
        XCTAssertNil(checks.deadline)
    }

    func testAPassingGrabAnUncoveredWindowOrTheHoldsOwnGrabClosesNothing() {
        var checks = KeyboardGrabChecks<Int>()
        checks.grab(over: 1, held: true, at: start)
        checks.grab(over: 1, held: false, at: start + .milliseconds(50))
        XCTAssertNil(checks.deadline, "Alt+Tab's grab, let go at once")
        checks.grab(over: 2, held: true, at: start)
        checks.forget(2)
        XCTAssertNil(checks.deadline)
        checks.grab(over: 3, held: true, at: start)
        XCTAssertEqual(checks.due(at: start + .seconds(1), shielded: { $0 != 3 }, holdIsOwnGrab: false), [])
        checks.grab(over: 4, held: true, at: start)
        XCTAssertEqual(checks.due(at: start + .seconds(1), shielded: { _ in true }, holdIsOwnGrab: true), [])
        XCTAssertNil(checks.deadline, "checked once")
    }
}
