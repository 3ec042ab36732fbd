import Foundation
import Glibc
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

    /// Something in a test closes the test process's standard input: the harness opens
    /// /dev/null there before it makes the next program's pipes, and says so.
    func testAClosedStandardInputOfTheTestProcessIsNotHandedOn() throws {
        close(0)
        let child = try ChildProcess(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "for d in 0 1 2; do readlink /proc/self/fd/$d; done"])
        XCTAssertEqual(child.waitForExit(timeout: 10), 0, child.standardError)
        XCTAssertEqual(
            Set(child.outputLines).count, 3, "the child's 0, 1 and 2 are three pipes of its own: \(child.outputLines)")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/0"), "/dev/null")
    }

    /// The same with standard output (kept aside and put back after): a pipe made while 1 is
    /// free would take it, and Foundation, moving the child's ends into place, could give the
    /// child its output pipe as its input.
    func testAClosedStandardOutputOfTheTestProcessIsNotHandedOn() throws {
        let saved = dup(1)
        XCTAssertGreaterThan(saved, 2)
        close(1)
        let child = try ChildProcess(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "for d in 0 1 2; do readlink /proc/self/fd/$d; done"])
        let status = child.waitForExit(timeout: 10)
        let replaced = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/1")
        dup2(saved, 1)
        close(saved)
        XCTAssertEqual(status, 0, child.standardError)
        XCTAssertEqual(
            Set(child.outputLines).count, 3, "the child's 0, 1 and 2 are three pipes of its own: \(child.outputLines)")
        XCTAssertTrue(child.outputLines.allSatisfy { $0.hasPrefix("pipe:") }, "\(child.outputLines)")
        XCTAssertEqual(replaced, "/dev/null")
    }
}
