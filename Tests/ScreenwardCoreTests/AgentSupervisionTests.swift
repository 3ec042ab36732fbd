import Foundation
import ScreenwardCore
import XCTest

/// The daemon's policy for a managed session's agent, over chosen times.
final class AgentSupervisionTests: XCTestCase {
    private let start = Date(timeIntervalSince1970: 1_800_000_000)
    private func at(_ seconds: TimeInterval) -> Date { start.addingTimeInterval(seconds) }

    func testAnActiveSessionGetsAnAgentAndAFailedOneIsRestartedAtOnce() {
        var supervision = AgentSupervision()
        XCTAssertEqual(supervision.sessionActivated(at: at(0)), [.startAgent])
        supervision.agentStarted(at: at(0.1))
        XCTAssertEqual(supervision.sessionActivated(at: at(0.2)), [], "one agent per session")
        XCTAssertEqual(supervision.agentEnded(at: at(10)), [.startAgent])
        supervision.agentStarted(at: at(10.2))
        XCTAssertEqual(supervision.agentEnded(at: at(40)), [.startAgent], "two failures in 60 s: restart, no lock")
        XCTAssertNil(supervision.lockedAt)
    }

    func testThreeFailuresWithinAMinuteLockTheSessionAndKeepTrying() {
        var supervision = AgentSupervision()
        _ = supervision.sessionActivated(at: at(0))
        for second in [1.0, 2.0] {
            supervision.agentStarted(at: at(second - 0.5))
            XCTAssertEqual(supervision.agentEnded(at: at(second)), [.startAgent])
        }
        supervision.agentStarted(at: at(2.5))
        XCTAssertEqual(supervision.agentEnded(at: at(3)), [.lockSession])
        XCTAssertEqual(supervision.lockedAt, at(3))
        // The next start waits half a second.
        XCTAssertEqual(supervision.nextDeadline(), at(3.5))
        XCTAssertEqual(supervision.check(at: at(3.4)), [])
        XCTAssertEqual(supervision.sessionActivated(at: at(3.45)), [], "the wait holds")
        XCTAssertEqual(supervision.check(at: at(3.5)), [.startAgent])
        // A fourth failure does not lock again; its start waits twice as long.
        supervision.agentStarted(at: at(3.6))
        XCTAssertEqual(supervision.agentEnded(at: at(4)), [])
        XCTAssertEqual(supervision.nextDeadline(), at(5))
    }

    /// An agent that attaches (reports) and dies at once, again and again: each failure locks
    /// again, and the starts wait 0.5, 1, 2, 4, then 8 s, never less.
    func testAnAgentThatAttachesAndDiesAgainAndAgainIsRestartedLessAndLessOften() {
        var supervision = AgentSupervision()
        var now = 0.0
        var waits: [TimeInterval] = []
        for _ in 0..<8 {
            supervision.agentStarted(at: at(now))
            supervision.agentReported(at: at(now + 0.05))
            let actions = supervision.agentEnded(at: at(now + 0.1))
            now += 0.1
            if actions.contains(.startAgent) {
                waits.append(0)
                continue
            }
            XCTAssertEqual(actions, [.lockSession], "a report cleared the lock: it locks again")
            let due = try! XCTUnwrap(supervision.nextDeadline())
            waits.append(due.timeIntervalSince(at(now)))
            now = due.timeIntervalSince(start)
            XCTAssertEqual(supervision.check(at: at(now)), [.startAgent])
        }
        XCTAssertEqual(waits.map { ($0 * 100).rounded() / 100 }, [0, 0, 0.5, 1, 2, 4, 8, 8])
    }

    func testFailuresOlderThanAMinuteDoNotCount() {
        var supervision = AgentSupervision()
        for second in [0.0, 30.0, 61.0, 95.0] {
            supervision.agentStarted(at: at(second))
            XCTAssertEqual(supervision.agentEnded(at: at(second + 0.5)), [.startAgent], "at \(second)")
        }
        XCTAssertNil(supervision.lockedAt)
    }

    func testASilentAgentIsReplacedAndTheSessionLocked() {
        var supervision = AgentSupervision()
        supervision.agentStarted(at: at(0))
        supervision.agentReported(at: at(2))
        XCTAssertEqual(supervision.nextDeadline(), at(7))
        XCTAssertEqual(supervision.check(at: at(6.9)), [])
        XCTAssertEqual(supervision.check(at: at(7)), [.lockSession, .replaceAgent])
        XCTAssertEqual(supervision.lockedAt, at(7))
    }

    func testALockedSessionWithoutAnAgentReportingIsEndedAfterThirtySeconds() {
        var supervision = AgentSupervision()
        for second in [0.0, 1.0, 2.0] {
            supervision.agentStarted(at: at(second))
            _ = supervision.agentEnded(at: at(second + 0.5))
        }
        XCTAssertEqual(supervision.lockedAt, at(2.5))
        XCTAssertEqual(supervision.check(at: at(3)), [.startAgent], "the start that waited")
        supervision.agentStarted(at: at(3))
        _ = supervision.agentEnded(at: at(3.5))
        XCTAssertEqual(supervision.nextDeadline(), at(4.5))
        XCTAssertEqual(supervision.check(at: at(4.5)), [.startAgent])
        supervision.agentStarted(at: at(4.5))
        supervision.agentReported(at: at(4.5))
        _ = supervision.agentEnded(at: at(4.6))
        XCTAssertEqual(supervision.lockedAt, at(4.6), "locked again")
        XCTAssertEqual(supervision.check(at: at(6.6)), [.startAgent])
        XCTAssertEqual(supervision.nextDeadline(), at(34.6), "no agent started")
        XCTAssertEqual(supervision.check(at: at(34.5)), [])
        XCTAssertEqual(supervision.check(at: at(34.6)), [.terminateSession])
        XCTAssertTrue(supervision.terminated)
        XCTAssertNil(supervision.nextDeadline())
        XCTAssertEqual(supervision.agentEnded(at: at(33)), [], "nothing more after the end")
    }

    func testAnAgentReportingAgainSavesALockedSession() {
        var supervision = AgentSupervision()
        for second in [0.0, 1.0, 2.0] {
            supervision.agentStarted(at: at(second))
            _ = supervision.agentEnded(at: at(second + 0.5))
        }
        supervision.agentStarted(at: at(3))
        supervision.agentReported(at: at(3.2))
        XCTAssertNil(supervision.lockedAt)
        XCTAssertEqual(supervision.check(at: at(40)), [.lockSession, .replaceAgent], "but it must keep reporting")
        XCTAssertFalse(supervision.terminated)
    }
}
