import ScreenwardCore
import ShieldCoverage
import X11Session
import XCTest

/// The audit of shields on screen, without an X server: frames and stacking as the server
/// would report them, and instants chosen by the test.
final class ShieldAuditTests: XCTestCase {
    private let target = WindowID(0x100)
    private let shield = WindowID(0x200)
    private let frame = ScreenRect(x: 10, y: 20, width: 300, height: 200)
    private let start = ContinuousClock.now

    private func shown(at offset: Duration = .zero) -> [ShieldAudit.Shown] {
        [ShieldAudit.Shown(target: target, targetFrame: frame, shield: shield, shownAt: start + offset)]
    }

    func testAShieldWrongAtTwoAuditsInARowIsReplacedNotAtTheFirst() {
        var audit = ShieldAudit()
        let unmapped = ShieldAudit.Seen(isViewable: false, frame: frame)
        let first = audit.check(shown(), seen: { _ in unmapped }, positions: [:], now: start + .milliseconds(600))
        XCTAssertEqual(first, [])
        let second = audit.check(shown(), seen: { _ in unmapped }, positions: [:], now: start + .milliseconds(850))
        XCTAssertEqual(second, [ShieldAudit.Replacement(target: target, problem: .unmappedOrMinimized)])
        XCTAssertEqual(second.first?.problem.description, "unmapped or minimized")
    }

    func testAShieldRightAgainBetweenAuditsStartsOver() {
        var audit = ShieldAudit()
        let moved = ShieldAudit.Seen(isViewable: true, frame: ScreenRect(x: 0, y: 0, width: 1, height: 1))
        let right = ShieldAudit.Seen(isViewable: true, frame: frame)
        var now = start + .milliseconds(600)
        for seen in [moved, right, moved] {
            XCTAssertEqual(audit.check(shown(), seen: { _ in seen }, positions: [:], now: now), [])
            now += ShieldAudit.interval
        }
        XCTAssertEqual(
            audit.check(shown(), seen: { _ in moved }, positions: [:], now: now),
            [ShieldAudit.Replacement(target: target, problem: .movedOrResized(moved.frame))])
    }

    func testAShieldJustShownIsLeftToTheWindowManager() {
        var audit = ShieldAudit()
        for offset in [100, 300, 500] {
            XCTAssertEqual(
                audit.check(shown(), seen: { _ in nil }, positions: [:], now: start + .milliseconds(offset)), [],
                "at \(offset) ms")
        }
        // Shown again (after a replacement): its record starts clean, and the wait again.
        audit.shown(shield)
        XCTAssertEqual(audit.check(shown(), seen: { _ in nil }, positions: [:], now: start + .milliseconds(600)), [])
        XCTAssertEqual(
            audit.check(shown(), seen: { _ in nil }, positions: [:], now: start + .milliseconds(850)),
            [ShieldAudit.Replacement(target: target, problem: .gone)])
    }

    func testAShieldUnderItsWindowIsFoundByTheStackingOrder() {
        var audit = ShieldAudit()
        let right = ShieldAudit.Seen(isViewable: true, frame: frame)
        let under = [shield: 1, target: 2]
        let over = [shield: 3, target: 2]
        XCTAssertEqual(audit.check(shown(), seen: { _ in right }, positions: over, now: start + .seconds(1)), [])
        XCTAssertEqual(audit.check(shown(), seen: { _ in right }, positions: over, now: start + .seconds(2)), [])
        XCTAssertEqual(audit.check(shown(), seen: { _ in right }, positions: under, now: start + .seconds(3)), [])
        let found = audit.check(shown(), seen: { _ in right }, positions: under, now: start + .seconds(4))
        XCTAssertEqual(found, [ShieldAudit.Replacement(target: target, problem: .underItsWindow)])
        XCTAssertEqual(found.first?.problem.description, "stacked under its window (a layer changed)")
    }
}

final class FocusHandbackTests: XCTestCase {
    private let shield = WindowID(0x200)
    private let browser = WindowID(0x300)
    private let start = ContinuousClock.now

    func testTheWindowManagersOwnActivationOfABackgroundShieldIsUndoneOnce() {
        var handback = FocusHandback()
        handback.shownInBackground(shield, whileActive: browser, at: start)
        XCTAssertEqual(handback.activated(shield, at: start + .milliseconds(20)), browser)
        XCTAssertNil(handback.activated(shield, at: start + .milliseconds(40)), "once")
    }

    func testAnActivationAfterThePatienceOrAWantedShieldKeepsTheFocus() {
        var handback = FocusHandback()
        handback.shownInBackground(shield, whileActive: browser, at: start)
        XCTAssertNil(handback.activated(shield, at: start + FocusHandback.patience + .milliseconds(1)))

        handback.shownInBackground(shield, whileActive: browser, at: start)
        handback.wanted(shield)
        XCTAssertNil(handback.activated(shield, at: start + .milliseconds(20)))
        XCTAssertNil(handback.activated(browser, at: start + .milliseconds(30)), "another window: nothing")
    }
}
