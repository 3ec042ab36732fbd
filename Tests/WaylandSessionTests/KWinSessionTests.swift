import Foundation
import SessionHarness
import TestSupport
import XCTest

/// The agent in a real KWin session: kwin_wayland run headless as a real account on a session
/// bus of its own, real Wayland clients (Mousepad's GTK 3, mpv), the agent and the command line
/// as that account. KWin lets a client neither type (no virtual keyboard) nor take pictures, so
/// the shield is seen through the agent's own account of it.
final class KWinSessionTests: AccountSessionTestCase {

    override func setUpWithError() throws {
        try super.setUpWithError()
        guard geteuid() == 0 else { try cannotRun("KWin runs as a real account this test makes: root only") }
        guard PrivateKWinSession.canStart() else {
            try cannotRun("kwin_wayland or dbus-run-session is missing (apt-get install kwin-wayland dbus-bin)")
        }
        _ = try requireProgram("mousepad", package: "mousepad")
        _ = try requireProgram("mpv", package: "mpv")
        try makeWork("kwin")
    }

    func testTheActiveWindowIsCountedAndAShieldedOneCoveredOverEverything() throws {
        let kwin = try startSession()
        try startAgent(in: kwin)
        XCTAssertTrue(agentLog.contains("tracking \(kwin.display) (a KWin script"), agentLog)
        try open(["mousepad"], in: kwin, resourceClass: "mousepad")
        try open(
            ["mpv", "--vo=wlshm", "--no-audio", "--loop=inf", "--force-window=yes", "av://lavfi:testsrc=size=320x240"],
            in: kwin, resourceClass: "mpv")
        try kwin.activate(resourceClass: "mousepad", in: work)
        Thread.sleep(forTimeInterval: 1)
        // mpv has the focus between two activations, each a script KWin loads and runs (a few
        // D-Bus calls): its time is at least the sleep between them, at most the whole span.
        let before = try usageSeconds(in: kwin)
        let spanStart = Date()
        try kwin.activate(resourceClass: "mpv", in: work)
        let sleepStart = Date()
        Thread.sleep(forTimeInterval: 2)
        let sleepEnd = Date()
        try kwin.activate(resourceClass: "mousepad", in: work)
        let span = Date().timeIntervalSince(spanStart)
        Thread.sleep(forTimeInterval: 0.5)
        let usage = try usageSeconds(in: kwin)
        let mpv = (usage["mpv.desktop"] ?? 0) - (before["mpv.desktop"] ?? 0)
        XCTAssertGreaterThanOrEqual(mpv, sleepEnd.timeIntervalSince(sleepStart) - 0.05, "\(usage)\n\(agentLog)")
        XCTAssertLessThanOrEqual(mpv, span + 0.05, "\(usage)")
        XCTAssertGreaterThan(
            (usage["org.xfce.mousepad.desktop"] ?? 0) - (before["org.xfce.mousepad.desktop"] ?? 0), 0.3)
        // KWin names each window's process: the log says whose it is.
        XCTAssertTrue(agentLog.contains("kwin: mpv (pid "), agentLog)

        // Mousepad, focused, is shielded: the overlay covers the output, and its time stops.
        XCTAssertEqual(try cli(["shield", "add", "--app", "org.xfce.mousepad.desktop"], in: kwin).status, 0)
        try waitFor("the shield drawn") { agentLog.contains("shield: drawn over") }
        XCTAssertTrue(try cli(["shields"], in: kwin).output.contains("shield overlay"))
        let covered = try usageSeconds(in: kwin)["org.xfce.mousepad.desktop"] ?? 0
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertEqual(try usageSeconds(in: kwin)["org.xfce.mousepad.desktop"] ?? 0, covered, accuracy: 0.2, agentLog)
        // An agent killed outright leaves its script in KWin; the next agent unloads it.
        let killed = try agentPID()
        XCTAssertTrue(try isScriptLoaded(of: killed, in: kwin))
        XCTAssertEqual(try kwin.run(["/bin/kill", "-KILL", "\(killed)"]).status, 0)
        agent?.stop(grace: 1)
        try startAgent(in: kwin)
        XCTAssertNotEqual(try agentPID(), killed)
        XCTAssertFalse(try isScriptLoaded(of: killed, in: kwin), agentLog)
        XCTAssertTrue(try isScriptLoaded(of: agentPID(), in: kwin), agentLog)
        // The agent's script leaves KWin with the agent.
        agent?.stop()
        XCTAssertFalse(try isScriptLoaded(of: agentPID(), in: kwin))
    }

    private func isScriptLoaded(of agent: Int32, in kwin: PrivateKWinSession) throws -> Bool {
        let reply = try kwin.run([
            "/usr/bin/dbus-send", "--session", "--print-reply", "--dest=org.kde.KWin", "/Scripting",
            "org.kde.kwin.Scripting.isScriptLoaded", "string:screenward-agent-\(agent)",
        ])
        guard reply.output.contains("boolean") else { throw HarnessError.failed(reply.output + reply.error) }
        return reply.output.contains("boolean true")
    }

    // MARK: The session

    private var agentPIDSeen: Int32?

    private func startSession() throws -> PrivateKWinSession {
        let kwin = try PrivateKWinSession(user: try makeAccount("kim"), in: work)
        session = kwin
        return kwin
    }

    private func startAgent(in kwin: PrivateKWinSession) throws {
        try startAgent(in: kwin, ["--verbose"])
        let status = try cli(["status"], in: kwin).output
        agentPIDSeen = status.split(separator: "(pid ").dropFirst().first.flatMap { Int32($0.prefix { $0.isNumber }) }
    }

    private func agentPID() throws -> Int32 { try XCTUnwrap(agentPIDSeen) }

    private func open(_ arguments: [String], in kwin: PrivateKWinSession, resourceClass: String) throws {
        clients.append(try kwin.start(arguments))
        try waitFor("\(arguments[0])'s window") { agentLog.contains("kwin: \(resourceClass) (pid ") }
    }
}
