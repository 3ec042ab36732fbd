import ChildModeCore
import Foundation
import XCTest

/// When an allowed console login counts, told the terminal's times: the policy alone
/// (ManagedSessionTests has a real child's terminal counted and ended).
final class ConsoleUseTests: XCTestCase {
    private let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    private func at(_ seconds: TimeInterval) -> Date { t0.addingTimeInterval(seconds) }

    func testALoginCountsFromItsStartWhileItsTerminalIsUsedAndStopsAtTheLastUseOnceIdle() {
        var use = ConsoleUse(since: at(0), idleThreshold: 120)
        // The terminal's times from before the login (an earlier one's) count from the login.
        XCTAssertEqual(use.observe(lastActivity: at(-500), now: at(1)), [.open(at: at(0)), .checkpoint(seconds: 1)])
        XCTAssertEqual(use.observe(lastActivity: at(8), now: at(10)), [.checkpoint(seconds: 10)])
        XCTAssertEqual(use.observe(lastActivity: at(8), now: at(127)), [.checkpoint(seconds: 127)])
        // 120 s without input or output: closed at the last, the idle time never counted.
        XCTAssertEqual(use.observe(lastActivity: at(8), now: at(129)), [.close(seconds: 8)])
        XCTAssertEqual(use.observe(lastActivity: at(8), now: at(200)), [])
        XCTAssertNil(use.countingSince)
        // A key again: counted from it.
        XCTAssertEqual(use.observe(lastActivity: at(296), now: at(300)), [.open(at: at(296)), .checkpoint(seconds: 4)])
        XCTAssertEqual(use.end(lastActivity: at(304), now: at(310)), [.close(seconds: 14)])
        XCTAssertEqual(use.end(lastActivity: at(304), now: at(311)), [], "closed once")
    }

    func testALoginEndingWhileIdleCountsUpToItsLastUse() {
        var use = ConsoleUse(since: at(0), idleThreshold: 120)
        _ = use.observe(lastActivity: at(0), now: at(1))
        XCTAssertEqual(use.end(lastActivity: at(16), now: at(200)), [.close(seconds: 16)])
    }

    func testALoginWithoutATerminalCountsWhileItIsOpen() {
        var use = ConsoleUse(since: at(0), idleThreshold: 120)
        XCTAssertEqual(use.observe(lastActivity: nil, now: at(0)), [.open(at: at(0)), .checkpoint(seconds: 0)])
        XCTAssertEqual(use.observe(lastActivity: nil, now: at(500)), [.checkpoint(seconds: 500)])
        XCTAssertEqual(use.end(lastActivity: nil, now: at(501)), [.close(seconds: 501)])
    }

    func testTheConsoleIsAnApplicationNamedByItsOwnID() {
        XCTAssertEqual(ConsoleApplication.identity.publicID, "console")
        XCTAssertEqual(ConsoleApplication.identity.displayName, "Console")
    }
}
