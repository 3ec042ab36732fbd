import Foundation
import GLibRuntime
import SessionDisplay
import SessionHarness
import X11Session
import XCTest

/// Closing an application, gentlest first, against real windows, openbox and processes.
final class WindowCloserTests: XSessionTestCase {
    private func close(_ extraArguments: [String], in session: PrivateXSession) throws -> (
        steps: [WindowCloser.Step], outcome: WindowCloser.Outcome?, app: DemoApplications
    ) {
        let app = try DemoApplications(
            display: session.display, windows: ["stubborn.Stubborn"], extraArguments: extraArguments)
        let connection = try XConnection(displayName: session.display)
        let loop = MainLoop()
        let events = loop.attach(connection)
        defer { events.cancel() }
        let closer = WindowCloser(connection: connection, loop: loop, grace: .milliseconds(400))
        guard let raw = UInt(app.windows[0].replacingOccurrences(of: "0x", with: ""), radix: 16) else {
            throw HarnessError.failed("bad window id \(app.windows[0])")
        }
        var steps: [WindowCloser.Step] = []
        var outcome: WindowCloser.Outcome?
        closer.close(WindowID(raw), pid: app.process.pid, onStep: { steps.append($0) }, done: { outcome = $0 })
        loop.iterate(until: { outcome != nil }, timeout: .seconds(10))
        return (steps, outcome, app)
    }

    func testAWindowThatHonoursTheRequestClosesAtTheFirstStep() throws {
        let session = try startXSession()
        let result = try close([], in: session)
        XCTAssertEqual(result.outcome, .closed(after: .closeRequest))
        XCTAssertEqual(result.steps, [.closeRequest])
        // The program's own end, not the closer's word: its last window closed, it exited cleanly.
        XCTAssertEqual(result.app.process.waitForTermination(timeout: 5), .exited(0))
        XCTAssertTrue(
            result.app.process.outputLines.contains("closed \(result.app.windows[0])"),
            "\(result.app.process.outputLines)")
    }

    func testAnApplicationIgnoringDeleteWindowIsTerminated() throws {
        let session = try startXSession()
        let result = try close(["--ignore-delete"], in: session)
        XCTAssertEqual(result.outcome, .closed(after: .terminate))
        XCTAssertEqual(result.steps, [.closeRequest, .deleteWindow, .terminate])
        XCTAssertEqual(result.app.process.waitForTermination(timeout: 5), .signalled(SIGTERM))
    }

    func testAnApplicationIgnoringSigtermIsKilled() throws {
        let session = try startXSession()
        let result = try close(["--ignore-delete", "--ignore-sigterm"], in: session)
        XCTAssertEqual(result.outcome, .closed(after: .kill))
        XCTAssertEqual(result.steps, [.closeRequest, .deleteWindow, .terminate, .kill])
        XCTAssertEqual(result.app.process.waitForTermination(timeout: 5), .signalled(SIGKILL))
    }
}
