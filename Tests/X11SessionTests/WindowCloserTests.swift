import Foundation
import SessionHarness
import X11Session
import XCTest

/// Closing an application, gentlest first, against real windows, openbox and processes.
final class WindowCloserTests: XSessionTestCase {
    private func close(_ extraArguments: [String], in session: PrivateXSession) throws -> (steps: [WindowCloser.Step], outcome: WindowCloser.Outcome?, app: DemoApplications) {
        let app = try DemoApplications(display: session.display, windows: ["stubborn.Stubborn"], extraArguments: extraArguments)
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
        XCTAssertNotNil(result.app.process.waitForExit(timeout: 5), "its last window closed, the program ended")
    }

    func testAnApplicationIgnoringDeleteWindowIsTerminated() throws {
        let session = try startXSession()
        let result = try close(["--ignore-delete"], in: session)
        XCTAssertEqual(result.outcome, .closed(after: .terminate))
        XCTAssertEqual(result.steps, [.closeRequest, .deleteWindow, .terminate])
    }

    func testAnApplicationIgnoringSigtermIsKilled() throws {
        let session = try startXSession()
        let result = try close(["--ignore-delete", "--ignore-sigterm"], in: session)
        XCTAssertEqual(result.outcome, .closed(after: .kill))
        XCTAssertEqual(result.steps, [.closeRequest, .deleteWindow, .terminate, .kill])
        XCTAssertFalse(result.app.process.isRunning)
    }
}
