import Foundation
import SessionHarness
import XCTest

/// The tests' harness itself: what a child wrote before exiting is all there once
/// `waitForExit` returns, though its pipes are read on threads of their own.
final class ChildProcessTests: XCTestCase {
    func testEverythingWrittenBeforeTheExitIsReadWhenTheWaitReturns() throws {
        for _ in 1...20 {
            let child = try ChildProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", "seq 1 5000; echo 'last words' >&2"])
            XCTAssertEqual(child.waitForExit(timeout: 10), 0)
            let lines = child.outputLines
            XCTAssertEqual(lines.count, 5000)
            XCTAssertEqual(lines.last, "5000")
            XCTAssertEqual(child.standardError, "last words\n")
        }
    }
}
