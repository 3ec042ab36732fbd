import Foundation
import Glibc
import SessionHarness
import TestSupport
import XCTest

/// A managed user's session (`ManagedDesktop`): the daemon starts the session's agent
/// itself, as the agents' user; the agent covers the game the child's stores shield; the
/// child cannot kill it; root's kill -9 brings a new agent and the shield back, and the
/// child's events say what happened.
final class ManagedSessionTests: XCTestCase {
    private var desktop: ManagedDesktop!
    private var fixture: DaemonFixture { desktop.fixture }

    override func setUpWithError() throws {
        try ManagedDesktop.requirements()
        desktop = try ManagedDesktop(fixture: try DaemonFixture())
    }

    override func tearDown() {
        desktop?.tearDown()
    }

    func testTheDaemonsAgentCoversTheChildsShieldedGameAndComesBackAfterAKill() throws {
        let kid = desktop.kid
        try desktop.startSessionWithTheGameShielded("c9")
        let agent = try XCTUnwrap(desktop.agentPID(), "no agent process")
        let owner = try String(contentsOfFile: "/proc/\(agent)/status", encoding: .utf8)
        XCTAssertFalse(
            owner.contains("Uid:\t\(desktop.uid)\t"), "the agent must not run as the child: \(owner.prefix(400))")

        // The child cannot kill it.
        XCTAssertNotEqual(try fixture.users.run(as: kid, ["kill", "-9", "\(agent)"]).status, 0)
        XCTAssertEqual(desktop.agentPID(), agent)

        // Root can; a new agent covers the game again.
        let reportsBefore = desktop.coverReports(1)
        let killed = Date()
        kill(agent, SIGKILL)
        try desktop.waitFor("the shield back after the kill") { desktop.coverReports(1) > reportsBefore }
        let back = Date().timeIntervalSince(killed)
        print("kill -9 → new agent's shield reported over the game: \(Int(back * 1000)) ms")
        XCTAssertLessThan(
            back, 5, "the shield must come back promptly (target: within 1 s; here including GTK's start)")
        XCTAssertNotEqual(desktop.agentPID(), agent)

        let events = try fixture.screenward(as: "root", ["child", "events", kid, "--json"])
        XCTAssertTrue(events.output.contains("agent-failed"), events.output)
    }

    func testAnAgentThatStopsReportingIsReplacedAndTheSessionLocked() throws {
        try desktop.startSessionWithTheGameShielded("c9")
        let agent = try XCTUnwrap(desktop.agentPID(), "no agent process")
        // Stopped, not dead: its connection stays open, but it says nothing more.
        let stopped = Date()
        kill(agent, SIGSTOP)
        defer { kill(agent, SIGKILL) }
        try desktop.waitFor("the lock", timeout: 15) { try desktop.logindCalls().contains("LockSession c9") }
        let silence = Date().timeIntervalSince(stopped)
        XCTAssertGreaterThanOrEqual(silence, 4.5, "five seconds of silence, not less")
        XCTAssertLessThan(silence, 8)
        try desktop.waitFor("a new agent") { desktop.agentPID().map { $0 != agent } ?? false }
        let events = try fixture.screenward(as: "root", ["child", "events", desktop.kid, "--json"]).output
        XCTAssertTrue(events.contains("stopped reporting"), events)
        XCTAssertTrue(events.contains("session-locked"), events)
    }

    func testASessionNoAgentCanEnforceIsLockedAndThen30SecondsLaterEnded() throws {
        try desktop.startSessionWithTheGameShielded("c9")
        // Without its X server no agent can start: failures, a lock, and the end.
        desktop.killXServer()
        try desktop.waitFor("the lock", timeout: 15) { try desktop.logindCalls().contains("LockSession c9") }
        let locked = Date()
        try desktop.waitFor("the session's end", timeout: 45) {
            try desktop.logindCalls().contains("TerminateSession c9")
        }
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(locked), 28, "30 s after the lock, not before")
        let events = try fixture.screenward(as: "root", ["child", "events", desktop.kid, "--json"]).output
        XCTAssertTrue(events.contains("session-ended"), events)
    }

    /// LockedHint is the session owner's to set (logind lets the child call SetLockedHint):
    /// the managed agent must not stop counting on it while the child keeps typing.
    func testTheChildsOwnLockedHintDoesNotStopTheCount() throws {
        try desktop.startManagedSession("c9")
        XCTAssertEqual(try desktop.runAsKid(["xdotool", "windowactivate", "--sync", desktop.windows[0]]).status, 0)
        try desktop.waitFor("the game counted") { try desktop.usageSeconds(of: "wmclass:Game") > 0.5 }

        let hint = try desktop.runAsKid(
            [
                "gdbus", "call", "--system", "--dest", "org.freedesktop.login1", "--object-path",
                "/org/freedesktop/login1/session/c9",
                "--method", "org.freedesktop.login1.Session.SetLockedHint", "true",
            ],
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": desktop.bus.address])
        XCTAssertEqual(hint.status, 0, hint.error)
        XCTAssertTrue(try desktop.logindCalls().contains("SetLockedHint c9 true"))
        try desktop.waitFor("the agent to hear the hint") {
            (fixture.daemon?.standardError ?? "").contains("logind says the session is locked: ignored")
        }

        let before = try desktop.usageSeconds(of: "wmclass:Game")
        let start = Date()
        // The child keeps using the game: a key every half second, for four seconds.
        while Date().timeIntervalSince(start) < 4 {
            _ = try desktop.runAsKid(["xdotool", "key", "--window", desktop.windows[0], "shift"])
            Thread.sleep(forTimeInterval: 0.5)
        }
        let elapsed = Date().timeIntervalSince(start)
        try desktop.waitFor("the count to reach the daemon", timeout: 5) {
            try desktop.usageSeconds(of: "wmclass:Game") - before >= elapsed - 1.5
        }
        print(
            """
            with the child's LockedHint set: \(try desktop.usageSeconds(of: "wmclass:Game") - before) s counted \
            in \(elapsed) s
            """
        )
    }
}
