import ScreenwardCore
import SessionDisplay
import X11Session
import XCTest

/// Presence as a value: input, motion in the focused window, the screen saver held off or
/// blanked, and when the interval ends once the evidence runs out. No X server.
final class PresenceTests: XCTestCase {
    let start = SystemTimeSource().now()
    let threshold: Duration = .seconds(10)

    func at(_ seconds: Double) -> ClockReading { start.earlier(by: .milliseconds(Int64((-seconds * 1000).rounded()))) }

    func seconds(_ reading: ClockReading) -> Double { start.monotonic.duration(to: reading.monotonic).seconds }

    func endOf(_ transition: IdleTransition?) -> Double? {
        guard case .becameIdle(let end) = transition else { return nil }
        return seconds(end)
    }

    func returnOf(_ transition: IdleTransition?) -> Double? {
        guard case .returned(let time) = transition else { return nil }
        return seconds(time)
    }

    func testWithoutOtherEvidenceInputIdleEndsAtTheLastInputAsBefore() {
        var presence = Presence(threshold: threshold)
        XCTAssertEqual(endOf(presence.take(.inputIdle(lastInput: at(5), at: at(15)))), 5)
        XCTAssertFalse(presence.isPresent)
        XCTAssertNil(presence.deadline)
        XCTAssertEqual(returnOf(presence.take(.inputReturned(at: at(20)))), 20)
    }

    func testMotionKeepsThePersonPresentAndTheIntervalEndsAtTheLastMotion() {
        var presence = Presence(threshold: threshold)
        XCTAssertNil(presence.take(.motion(since: at(1), latest: at(2))))
        XCTAssertNil(presence.take(.motion(since: at(1), latest: at(12))))
        // Input stopped at 5; the motion went on to 12: still present at 15.
        XCTAssertNil(presence.take(.inputIdle(lastInput: at(5), at: at(15))))
        XCTAssertTrue(presence.isPresent)
        XCTAssertEqual(presence.deadline.map(seconds), 22)
        XCTAssertNil(presence.take(.motion(since: at(1), latest: at(30))))
        XCTAssertEqual(presence.deadline.map(seconds), 40)
        // A look before the deadline changes nothing; at it, the interval ends at the last motion.
        XCTAssertNil(presence.take(.check(at: at(39.9))))
        XCTAssertEqual(endOf(presence.take(.check(at: at(40)))), 30)
        XCTAssertNil(presence.deadline)
    }

    func testMotionAfterTheIdleThresholdReturnsAtItsStart() {
        var presence = Presence(threshold: threshold)
        XCTAssertEqual(endOf(presence.take(.inputIdle(lastInput: at(0), at: at(10)))), 0)
        XCTAssertEqual(returnOf(presence.take(.motion(since: at(50), latest: at(51)))), 50)
        XCTAssertEqual(presence.deadline.map(seconds), 61)
    }

    func testAHoldKeepsThePersonPresentUntilItEndsThenForTheThreshold() {
        var presence = Presence(threshold: threshold)
        XCTAssertNil(presence.take(.holding(true, at: at(1))))
        XCTAssertNil(presence.take(.inputIdle(lastInput: at(1), at: at(11))))
        XCTAssertNil(presence.deadline, "no look is due while the screen saver is held off")
        XCTAssertNil(presence.take(.check(at: at(500))))
        XCTAssertTrue(presence.isPresent)
        XCTAssertNil(presence.take(.holding(false, at: at(600))))
        XCTAssertEqual(presence.deadline.map(seconds), 610)
        XCTAssertEqual(endOf(presence.take(.check(at: at(610)))), 600)
        XCTAssertEqual(returnOf(presence.take(.holding(true, at: at(700)))), 700)
    }

    func testABlankedScreenNeverCountsWhateverHoldsItOrMovesBehindIt() {
        var presence = Presence(threshold: threshold)
        XCTAssertNil(presence.take(.holding(true, at: at(1))))
        XCTAssertNil(presence.take(.inputIdle(lastInput: at(1), at: at(11))))
        XCTAssertEqual(endOf(presence.take(.blanked(true, at: at(100)))), 100)
        XCTAssertNil(presence.take(.motion(since: at(101), latest: at(105))), "nothing shows: no motion")
        XCTAssertFalse(presence.isPresent)
        XCTAssertEqual(returnOf(presence.take(.blanked(false, at: at(200)))), 200, "the hold still stands")
    }

    func testABlankEndsWhatOnlyTheLastMotionKeptOpenAtThatMotion() {
        var presence = Presence(threshold: threshold)
        _ = presence.take(.inputIdle(lastInput: at(0), at: at(10)))
        XCTAssertEqual(returnOf(presence.take(.motion(since: at(20), latest: at(21)))), 20)
        XCTAssertEqual(endOf(presence.take(.blanked(true, at: at(25)))), 21)
        // Unblanked without input or a hold: nothing says anyone is there.
        XCTAssertNil(presence.take(.blanked(false, at: at(26))))
        XCTAssertFalse(presence.isPresent)
    }

    // MARK: Motion

    func testAVideoIsMotionOnceItHasGoneOnForASecond() {
        var rule = MotionRule()
        // Samples every 0.52 s, each 320×240 of a 1050×780 window, the first change 20 ms
        // after the last sample.
        XCTAssertNil(rule.take(area: 76_800, windowArea: 819_000, firstChange: at(0), at: at(0.5)))
        let motion = rule.take(area: 76_800, windowArea: 819_000, firstChange: at(0.52), at: at(1.02))
        XCTAssertEqual(motion.map { seconds($0.since) }, 0)
        XCTAssertEqual(motion.map { seconds($0.latest) } ?? -1, 0.52, accuracy: 1e-9)
    }

    func testABlinkingCursorIsNoMotion() {
        var rule = MotionRule()
        // xterm's blinking cursor: 6×13 pixels of 484×316, every 0.9 s, for a minute.
        for index in 0..<66 {
            let time = Double(index) * 0.9
            XCTAssertNil(rule.take(area: 78, windowArea: 152_944, firstChange: at(time), at: at(time + 0.5)))
        }
        XCTAssertFalse(MotionRule.counts(area: 78, windowArea: 152_944))
        XCTAssertFalse(MotionRule.counts(area: 64 * 63, windowArea: 100 * 100), "under 64×64 pixels")
        XCTAssertFalse(MotionRule.counts(area: 9_000, windowArea: 1920 * 1080), "under 1 % of the window")
        XCTAssertTrue(MotionRule.counts(area: 76_800, windowArea: 1280 * 781))
    }

    func testRedrawsApartAreNoMotion() {
        var rule = MotionRule()
        // A page that redraws all of itself every two seconds: each a run of one sample.
        for index in 0..<20 {
            let time = Double(index) * 2
            XCTAssertNil(rule.take(area: 819_000, windowArea: 819_000, firstChange: at(time), at: at(time + 0.5)))
        }
    }

    func testAPauseOrASmallSampleStartsTheRunAgain() {
        var rule = MotionRule()
        XCTAssertNil(rule.take(area: 76_800, windowArea: 819_000, firstChange: at(0), at: at(0.5)))
        XCTAssertNil(rule.take(area: 78, windowArea: 819_000, firstChange: at(0.52), at: at(1.02)))
        XCTAssertNil(rule.take(area: 76_800, windowArea: 819_000, firstChange: at(1.04), at: at(1.54)))
        XCTAssertNotNil(rule.take(area: 76_800, windowArea: 819_000, firstChange: at(1.56), at: at(2.06)))
        rule.reset()
        XCTAssertNil(rule.take(area: 76_800, windowArea: 819_000, firstChange: at(2.08), at: at(2.58)))
    }

    // MARK: Holds

    func testHoldsCountPerClientAsTheServerDoes() {
        var holds = ScreenSaverHolds()
        holds.request(client: 0x40_0000, pid: 100, suspend: 1)
        holds.request(client: 0x40_0000, pid: 100, suspend: 1)
        XCTAssertTrue(holds.isHeld(byProcess: 100))
        XCTAssertFalse(holds.isHeld(byProcess: 200))
        XCTAssertFalse(holds.isHeld(byProcess: nil))
        holds.request(client: 0x40_0000, pid: 100, suspend: 0)
        XCTAssertTrue(holds.isHeld(byProcess: 100), "suspended twice, resumed once")
        holds.request(client: 0x40_0000, pid: 100, suspend: 0)
        XCTAssertFalse(holds.isHeld(byProcess: 100))
        // Only 1 suspends; a resume from a client that holds nothing is nothing.
        holds.request(client: 0x60_0000, pid: 300, suspend: 2)
        XCTAssertFalse(holds.isHeld(byProcess: 300))
        holds.request(client: 0x60_0000, pid: 300, suspend: 1)
        XCTAssertFalse(holds.clientEnded(0x40_0000))
        XCTAssertTrue(holds.clientEnded(0x60_0000))
        XCTAssertFalse(holds.isHeld(byProcess: 300))
    }
}
