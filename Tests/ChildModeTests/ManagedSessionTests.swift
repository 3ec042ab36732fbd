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

        // Recorded a second after the kill, the session being still there.
        try desktop.waitFor("the agent's end recorded") {
            try fixture.screenward(as: "root", ["child", "events", kid, "--json"]).output.contains("agent-failed")
        }
    }

    /// At a logout the agent's display goes a moment before logind says the session ended:
    /// the agent is replaced as ever, but no failure is recorded for a session that ended.
    func testAnAgentEndingWithItsSessionIsNoFailure() throws {
        try desktop.startManagedSession("c9")
        let agent = try XCTUnwrap(desktop.agentPID(), "no agent process")
        kill(agent, SIGKILL)
        // The daemon has seen the agent's end (and started another) before logind's word.
        try desktop.waitFor("the agent's end seen") {
            (fixture.daemon?.standardError ?? "").contains("session c9: its agent ended")
        }
        try desktop.bus.logind("remove-session c9")
        Thread.sleep(forTimeInterval: 2)
        let events = try fixture.screenward(as: "root", ["child", "events", desktop.kid, "--json"]).output
        XCTAssertFalse(events.contains("agent-failed"), events)
        XCTAssertTrue((fixture.daemon?.standardError ?? "").contains("as its session ended: not recorded"))
        XCTAssertNil(desktop.agentPID(), "no agent left for a session that ended")
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

    /// Every session of the child's that no agent can enforce is a door: a console login
    /// (logind's `login`, a terminal), an SSH command without a terminal (class background,
    /// remote), a Mir session. Each is ended at once and recorded once; root's own
    /// `su` session for the child is left alone; the child's X11 session keeps its agent;
    /// and the child's next desktop session tells them why (the daemon's notices).
    func testEveryDoorNoAgentEnforcesIsEndedAtOnceAndRecordedOnce() throws {
        try desktop.startManagedSession("c9")
        let agent = try XCTUnwrap(desktop.agentPID(), "no agent process")
        let kid = "uid=\(desktop.uid) name=\(desktop.kid)"
        // Root's: left alone (a positive control for the ends below: not every session goes).
        try desktop.bus.logind("add-session c13 \(kid) type=unspecified class=background service=su display= seat=")
        let doors = [
            "c10": "type=tty class=user service=login tty=tty2 display= active=yes",
            "c11": "type=unspecified class=background service=sshd remote=yes display= seat= state=online active=no",
            "c12": "type=mir class=user service=lightdm display= active=yes",
        ]
        var ends: [String: TimeInterval] = [:]
        for (session, fields) in doors.sorted(by: { $0.key < $1.key }) {
            let opened = Date()
            try desktop.bus.logind("add-session \(session) \(kid) \(fields)")
            try desktop.waitFor("session \(session) ended", timeout: 10) {
                try desktop.logindCalls().contains("TerminateSession \(session)")
            }
            ends[session] = Date().timeIntervalSince(opened)
        }
        let figures = ends.sorted { $0.key < $1.key }.map { "\($0.key) \(Int($0.value * 1000)) ms" }
        print("door opened → TerminateSession: \(figures.joined(separator: ", "))")
        for (session, seconds) in ends {
            XCTAssertLessThan(seconds, 3, "session \(session) must be ended at once (target: 1 s)")
        }
        let sessions = try desktop.bus.logindAnswer("sessions")
        XCTAssertTrue(sessions.contains("c13"), "root's su session must stay: \(sessions)")
        XCTAssertTrue(sessions.contains("c9"), sessions)
        XCTAssertFalse(try desktop.logindCalls().contains("TerminateSession c13"))
        XCTAssertFalse(try desktop.logindCalls().contains("TerminateSession c9"))
        XCTAssertEqual(desktop.agentPID(), agent, "the X11 session's agent must be left running")

        // A door logind would not close is recorded as such, once, and asked again whenever
        // logind says something of it.
        try desktop.bus.logind("deny-session-control yes")
        try desktop.bus.logind("add-session c14 \(kid) type=tty class=user service=login tty=tty3 display=")
        try desktop.waitFor("session c14's end asked") { try desktop.logindCalls().contains("TerminateSession c14") }
        for change in ["active=no state=online", "active=yes state=active"] {
            try desktop.bus.logind("set-session c14 \(change)")
        }
        let refused = "TerminateSession c14 -> org.freedesktop.DBus.Error.AccessDenied"
        try desktop.waitFor("session c14's end asked again") {
            try desktop.logindCalls().components(separatedBy: refused).count - 1 >= 2
        }
        try desktop.bus.logind("deny-session-control no")
        // A retry still under way when logind starts obeying may end c14 before this change
        // reaches it; then the change has nothing left to touch, which is as good.
        do {
            try desktop.bus.logind("set-session c14 locked=yes")
        } catch {
            guard !(try desktop.bus.logindAnswer("sessions")).contains("c14") else { throw error }
        }
        try desktop.waitFor("session c14 ended") { !(try desktop.bus.logindAnswer("sessions")).contains("c14") }
        let events = try fixture.screenward(as: "root", ["child", "events", desktop.kid, "--json"]).output
        let ended = events.components(separatedBy: "session-ended").count - 1
        XCTAssertEqual(ended, 4, "each door once: \(events)")
        XCTAssertTrue(events.contains("session c14 should have been ended but logind refused"), events)
        XCTAssertTrue(events.contains("a Mir session was ended (session c12, lightdm)"), events)
        XCTAssertTrue(events.contains("a console login was ended (session c10, login, tty2)"), events)
        XCTAssertTrue(events.contains("a console login was ended (session c11, sshd)"), events)

        // The next desktop session (here: the agent started again) tells the child why.
        kill(agent, SIGKILL)
        try desktop.waitFor("the notices") {
            let log = fixture.daemon?.standardError ?? ""
            return log.contains("notifying \"Your session was ended\"")
                && log.contains("notifying \"Your console login was ended\"")
        }
    }

    /// A console login a guardian allowed is not ended: it counts as the app Console while its
    /// terminal is used (the child's shell prints a line a second, on a terminal of theirs), and
    /// ends, after a line on that terminal, once Console is shielded (its limit used). Before
    /// the allowance, the same login is ended at once (the control).
    func testAnAllowedConsoleCountsAsConsoleAndEndsOnceConsoleIsShielded() throws {
        try desktop.startManagedSession("c9")
        let kid = "uid=\(desktop.uid) name=\(desktop.kid)"
        let terminal = try desktop.startAsKid(
            ["script", "-qfec", "while :; do echo console in use; sleep 1; done", "/dev/null"],
            environment: ["TERM": "xterm"])
        defer { terminal.stop() }
        var tty = ""
        try desktop.waitFor("the child's terminal") {
            let shells = try desktop.runAsKid(["pgrep", "-u", desktop.kid, "-f", "echo console in use"]).output
            for pid in shells.split(separator: "\n") {
                let path = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/1")) ?? ""
                if path.hasPrefix("/dev/pts/") { tty = String(path.dropFirst("/dev/".count)) }
            }
            return !tty.isEmpty
        }
        let console = "type=tty class=user service=login tty=\(tty) display= active=yes"
        try desktop.bus.logind("add-session c20 \(kid) \(console)")
        try desktop.waitFor("the control: c20 ended at once") {
            try desktop.logindCalls().contains("TerminateSession c20")
        }

        let allowed = try fixture.screenward(as: "root", ["child", "console", "allow", desktop.kid])
        XCTAssertEqual(allowed.status, 0, allowed.error)
        XCTAssertTrue(allowed.output.contains("console logins are allowed"), allowed.output)
        let shown = try fixture.screenward(as: "root", ["child", "console", desktop.kid])
        XCTAssertTrue(shown.output.contains("console logins are allowed"), shown.output)
        let limited = try fixture.screenward(
            as: "root", ["limit", "add", "Console", "--app", "console", "--daily", "4s", "--user", desktop.kid])
        XCTAssertEqual(limited.status, 0, limited.error)
        let opened = Date()
        try desktop.bus.logind("add-session c21 \(kid) \(console)")
        Thread.sleep(forTimeInterval: 2)
        XCTAssertFalse(try desktop.logindCalls().contains("TerminateSession c21"), "an allowed console runs")
        XCTAssertGreaterThan(try desktop.usageSeconds(of: "console"), 0.5, "and counts")
        try desktop.waitFor("c21 ended once Console's 4 s were used", timeout: 15) {
            try desktop.logindCalls().contains("TerminateSession c21")
        }
        let lasted = Date().timeIntervalSince(opened)
        try desktop.waitFor("the terminal told") {
            terminal.outputLines.contains { $0.contains("screenward: Console is shielded now") }
        }
        // The daemon's poll (1 s) and the engine's rounding: within a second and a half.
        let counted = try desktop.usageSeconds(of: "console")
        print("allowed console: ended \(lasted) s after it opened; Console counted \(counted) s")
        XCTAssertEqual(counted, 4, accuracy: 1.5)
        let events = try fixture.screenward(as: "root", ["child", "events", desktop.kid]).output
        XCTAssertTrue(events.contains("allowed \(desktop.kid)'s console logins"), events)
        XCTAssertTrue(
            events.contains("a console login was ended (session c21, login, \(tty)): Console is shielded"), events)

        // Shielded, a new console login is ended at once too.
        try desktop.bus.logind("add-session c22 \(kid) \(console)")
        try desktop.waitFor("c22 ended at once") { try desktop.logindCalls().contains("TerminateSession c22") }
    }
}
