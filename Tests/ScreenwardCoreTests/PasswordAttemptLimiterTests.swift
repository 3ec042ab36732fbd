import Foundation
import ScreenwardCore
import XCTest

final class PasswordAttemptLimiterTests: XCTestCase {
    private let start = Date(timeIntervalSince1970: 1_700_000_000)

    func testThreeFailuresStartA30SecondWait() {
        var limiter = PasswordAttemptLimiter()
        XCTAssertEqual(limiter.recordFailure("mum", now: start), .allowed)
        XCTAssertEqual(limiter.recordFailure("mum", now: start + 1), .allowed)
        XCTAssertEqual(limiter.recordFailure("mum", now: start + 2), .wait(until: start + 32))
        XCTAssertEqual(limiter.check("mum", now: start + 31.9), .wait(until: start + 32))
        XCTAssertEqual(limiter.check("mum", now: start + 32), .allowed)
    }

    func testEachFurtherFailureDoublesTheWait() {
        var limiter = PasswordAttemptLimiter()
        var now = start
        for _ in 0..<3 { limiter.recordFailure("mum", now: now) }
        var waits: [TimeInterval] = []
        for _ in 0..<4 {
            guard case .wait(let until) = limiter.check("mum", now: now) else {
                return XCTFail("no wait after \(limiter.consecutiveFailures("mum")) failures")
            }
            now = until
            XCTAssertEqual(limiter.check("mum", now: now), .allowed)
            guard case .wait(let next) = limiter.recordFailure("mum", now: now) else {
                return XCTFail("a failure after the wait did not start one")
            }
            waits.append(next.timeIntervalSince(now))
        }
        XCTAssertEqual(waits, [60, 120, 240, 480])
    }

    func testTheWaitIsCappedAtAnHour() {
        var limiter = PasswordAttemptLimiter()
        var decision = PasswordAttemptLimiter.Decision.allowed
        for _ in 0..<200 { decision = limiter.recordFailure("mum", now: start) }
        XCTAssertEqual(decision, .wait(until: start + 3600))
        XCTAssertEqual(limiter.wait(afterFailures: Int.max), 3600)
        XCTAssertEqual(limiter.wait(afterFailures: 2), nil)
    }

    func testASuccessResets() {
        var limiter = PasswordAttemptLimiter()
        for second in 0..<4 { limiter.recordFailure("mum", now: start + Double(second)) }
        limiter.recordSuccess("mum")
        XCTAssertEqual(limiter.check("mum", now: start + 4), .allowed)
        XCTAssertEqual(limiter.consecutiveFailures("mum"), 0)
        // Counting starts over: two more failures are still free.
        XCTAssertEqual(limiter.recordFailure("mum", now: start + 5), .allowed)
        XCTAssertEqual(limiter.recordFailure("mum", now: start + 6), .allowed)
    }

    func testKeysAreIndependent() {
        var limiter = PasswordAttemptLimiter()
        for _ in 0..<3 { limiter.recordFailure("mum", now: start) }
        XCTAssertEqual(limiter.check("dad", now: start), .allowed)
        XCTAssertEqual(limiter.recordFailure("dad", now: start), .allowed)
        XCTAssertEqual(limiter.check("mum", now: start), .wait(until: start + 30))
    }

    func testFailuresDuringAWaitStillCount() {
        var limiter = PasswordAttemptLimiter()
        for _ in 0..<3 { limiter.recordFailure("mum", now: start) }
        XCTAssertEqual(limiter.recordFailure("mum", now: start + 10), .wait(until: start + 70))
    }

    func testNonsenseSettingsAreClamped() {
        let limiter = PasswordAttemptLimiter(freeFailures: -5, firstWait: -1, maximumWait: -10)
        XCTAssertEqual(limiter.freeFailures, 1)
        XCTAssertEqual(limiter.firstWait, 0)
        XCTAssertEqual(limiter.maximumWait, 0)
    }
}
