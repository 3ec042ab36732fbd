import Foundation
import SessionHarness
import TestSupport
import XCTest

/// Which display the agent follows when the session names both a Wayland and an X display.
final class DisplayChoiceTests: XCTestCase {
    /// A Wayland display the agent cannot follow (here: none answers at that name; GNOME Shell
    /// and KWin offer no foreign toplevels): the agent follows the X display beside it, as before
    /// Wayland was served, and says what it does not see.
    func testAWaylandDisplayItCannotFollowLeavesTheXDisplay() throws {
        guard PrivateXSession.canStart() else { try cannotRun("Xvfb and openbox are needed") }
        let session = try PrivateXSession()
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("choice-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        // As a session starts it: no display named, both in the environment.
        let agent = try ChildProcess(
            try ProjectPrograms.url(of: "screenward-agent"), [],
            environment: [
                "DISPLAY": session.display, "WAYLAND_DISPLAY": "wayland-none-\(UUID().uuidString.prefix(8))",
                "SCREENWARD_HOME": home.path, "SCREENWARD_DAEMON_SOCKET": home.appendingPathComponent("none.sock").path,
            ])
        defer { agent.stop() }
        try agent.waitForStandardError(containing: "tracking", timeout: 20)
        let log = agent.standardError
        XCTAssertTrue(log.contains("tracking \(session.display) ("), log)
        XCTAssertTrue(log.contains("only the windows of the X display \(session.display)"), log)
    }
}
