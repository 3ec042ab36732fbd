import ScreenwardCore
import SessionDisplay
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

    func testItLooksAgainOnlyWhileAShieldSettlesOrHasAStrike() {
        var audit = ShieldAudit()
        XCTAssertTrue(audit.needsAnotherLook(shown(), now: start + .milliseconds(250)), "still settling")
        let right = ShieldAudit.Seen(isViewable: true, frame: frame)
        XCTAssertEqual(audit.check(shown(), seen: { _ in right }, positions: [:], now: start + .milliseconds(600)), [])
        XCTAssertFalse(audit.needsAnotherLook(shown(), now: start + .milliseconds(600)), "right: nothing more to do")
        let unmapped = ShieldAudit.Seen(isViewable: false, frame: frame)
        _ = audit.check(shown(), seen: { _ in unmapped }, positions: [:], now: start + .milliseconds(900))
        XCTAssertTrue(audit.needsAnotherLook(shown(), now: start + .milliseconds(900)), "one strike: confirmed next")
        audit.forget(shield)
        XCTAssertFalse(audit.needsAnotherLook(shown(), now: start + .milliseconds(900)))
        XCTAssertFalse(audit.needsAnotherLook([], now: start))
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

final class ShieldFollowingTests: XCTestCase {
    private let window = ClientWindow(
        id: WindowID(0x100), facts: WindowFacts(windowID: 0x100), pid: 42,
        frame: ScreenRect(x: 0, y: 0, width: 300, height: 200),
        desktop: 0, isViewable: true, isFullscreen: false)

    private func steps(
        to now: ClientWindow, decisionNow: String = "evening", visible: Bool = true, active: Bool = true
    ) -> [ShieldFollowing.Step] {
        // The decisions, as the stores that cover the window.
        let decision = "evening"
        return ShieldFollowing.steps(
            before: window, now: now, decision: decision, decisionNow: decisionNow, shieldVisible: visible,
            windowIsActive: active)
    }

    func testAMovedWindowOnAnotherDesktopTakesItsShieldAlong() {
        var moved = window
        moved.frame = ScreenRect(x: 50, y: 60, width: 400, height: 300)
        moved.desktop = 1
        XCTAssertEqual(steps(to: moved), [.cover(moved.frame), .followDesktop])
        XCTAssertEqual(steps(to: window), [], "nothing changed: nothing to do")
    }

    func testAMinimizedWindowHidesItsShieldAndARestoredOneShowsIt() {
        var minimized = window
        minimized.isViewable = false
        XCTAssertEqual(steps(to: minimized), [.hide])
        XCTAssertEqual(steps(to: minimized, visible: false), [], "already hidden")
        XCTAssertEqual(steps(to: window, visible: false), [.show])
    }

    func testFullscreenRaisesTheShieldAgainOnlyWhileFocusedAndANewDecisionRedraws() {
        var fullscreen = window
        fullscreen.isFullscreen = true
        XCTAssertEqual(steps(to: fullscreen), [.focus])
        XCTAssertEqual(steps(to: fullscreen, active: false), [])
        XCTAssertEqual(steps(to: window, decisionNow: "downtime"), [.redraw])
    }
}

final class ShieldButtonWaitsTests: XCTestCase {
    private let start = ContinuousClock.now
    private let first = ShieldRequestID(rawValue: 1)
    private let second = ShieldRequestID(rawValue: 2)

    func testAnAnswerInTimeIsCarriedOutOnceAndALateOneIsIgnored() {
        var waits = ShieldButtonWaits<String>()
        waits.asked(first, for: "Game's shield", at: start)
        waits.asked(second, for: "Chat's shield", at: start + .seconds(4))
        XCTAssertEqual(waits.deadline, start + ShieldButtonWaits<String>.patience)
        XCTAssertEqual(waits.answered(first), "Game's shield")
        XCTAssertNil(waits.answered(first), "answered twice: the second is ignored")
        XCTAssertEqual(waits.deadline, start + .seconds(4) + ShieldButtonWaits<String>.patience)

        XCTAssertTrue(waits.expired(at: start + .seconds(13)).isEmpty)
        let expired = waits.expired(at: start + .seconds(14))
        XCTAssertEqual(expired.map(\.request), [second])
        XCTAssertEqual(expired.map(\.decision), ["Chat's shield"])
        XCTAssertNil(waits.answered(second), "given up on: its answer does nothing")
        XCTAssertNil(waits.deadline)
        XCTAssertNil(waits.answered(ShieldRequestID(rawValue: 9)), "never asked")
    }
}
