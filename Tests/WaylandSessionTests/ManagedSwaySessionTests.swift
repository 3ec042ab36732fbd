import ChildModeCore
import Foundation
import Glibc
import SessionHarness
import TestSupport
import XCTest

/// A managed child's sway session, served by the system daemon as an X11 one is: real sway run
/// headless as the child, the real daemon as root on a private system bus whose logind (the
/// project's fake) names the session `Type=wayland` with sway's leader. The daemon finds and
/// vets the compositor and starts the agent as the agents' user, who reaches the child's socket
/// through an access list entry; a guardian's limit shields foot, drawn over it and held; a
/// debugger the child attaches to their sway ends the session; a socket the child puts in place of
/// sway's is refused. A sway started with the loader's variables is refused, and its session ended.
final class ManagedSwaySessionTests: XCTestCase {
    private var fixture: DaemonRig!
    private var bus: PrivateLogindBus?
    private var sway: PrivateWaylandSession?
    private var clients: [ChildProcess] = []
    private var kid = ""
    private var uid: UInt32 = 0

    override func setUpWithError() throws {
        guard geteuid() == 0 else { try cannotRun("the daemon and the child's account: root only") }
        if let missing = DaemonRig.missingRequirement() { try cannotRun(missing) }
        guard PrivateWaylandSession.canStart() else {
            try cannotRun("sway, foot, grim or wtype is missing (apt-get install sway foot grim wtype)")
        }
        fixture = try DaemonRig()
        fixture.machineApplications = ["foot.desktop", "debian-xterm.desktop"]
        kid = try fixture.users.add("kid")
        let printed = try fixture.users.run(as: "root", ["id", "-u", kid]).output
        uid = try XCTUnwrap(UInt32(printed.trimmingCharacters(in: .whitespacesAndNewlines)))
        let bus = try PrivateLogindBus(outsideSessions: true)
        self.bus = bus
        try fixture.startDaemon(environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
    }

    override func tearDown() {
        for client in clients { client.stop(grace: 1) }
        fixture?.stopDaemon()
        sway?.stop()
        bus?.stop()
        fixture?.tearDown()
    }

    func testTheDaemonsAgentTracksTheChildsSwaySessionAndShieldsWhatALimitEnds() throws {
        let sway = try PrivateWaylandSession(user: kid, in: fixture.work)
        self.sway = sway
        try addSession("c30", leader: sway.leaderPID)
        try manage()
        let limit = ["limit", "add", "Terminal", "--app", "foot.desktop", "--daily", "3s", "--user", kid]
        XCTAssertEqual(try fixture.screenward(as: "root", limit).status, 0)
        try waitFor("the session's agent to attach") { daemonLog.contains("session c30: agent attached") }
        let agent = try XCTUnwrap(fixture.agentPID(session: "c30"), daemonLog)
        let status = try String(contentsOfFile: "/proc/\(agent)/status", encoding: .utf8)
        XCTAssertTrue(status.contains("Uid:\t\(try agentUID())\t"), status.prefix(400) + "")
        try waitFor("the agent tracking") { daemonLog.contains("wlroots foreign toplevels, processes from sway's IPC") }
        // The child cannot kill it.
        XCTAssertNotEqual(try fixture.users.run(as: kid, ["kill", "-9", "\(agent)"]).status, 0)

        // foot is counted, then shielded once its 3 s are used: the overlay is drawn over it.
        let foot = try sway.start(["foot"])
        clients.append(foot)
        try waitFor("foot's window") { try sway.windows().contains { $0.appID == "foot" && $0.focused } }
        try waitFor("foot counted") { try usedSeconds("foot.desktop") > 0.5 }
        try waitFor("the shield drawn over foot", timeout: 20) { daemonLog.contains("shield: drawn over") }
        _ = try LocalUsers.capture("/usr/bin/chmod", ["1777", fixture.work.path])
        try waitFor("the shield on screen") { try sway.showsShieldButton(scratch: fixture.work) }
        // Held: nothing of foot's runs behind the shield.
        let footPID = try XCTUnwrap(try sway.windows().first { $0.appID == "foot" }?.pid)
        try waitFor("foot held") { HeldProcess.isHeld(footPID) }
        let used = try usedSeconds("foot.desktop")
        XCTAssertLessThan(used, 4.5, daemonLog)
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertEqual(try usedSeconds("foot.desktop"), used, accuracy: 0.2, "covered time is nobody's usage")

        // A debugger of the child's attached to their sway: the session is ended within seconds.
        let compositor = try XCTUnwrap(
            SessionCompositor.find(leader: sway.leaderPID, uid: uid).map(\.pid).get() as Int32?)
        let tracer = try sway.start(["/usr/bin/strace", "-o", "/dev/null", "-p", "\(compositor)"])
        clients.append(tracer)
        let traced = Date()
        try waitFor("the traced sway's session ended") {
            try bus!.logindAnswer("calls").contains("TerminateSession c30")
        }
        let ended = Int(Date().timeIntervalSince(traced) * 1000)
        print("a debugger attached to the session's sway → its session ended: \(ended) ms")
        let events = try fixture.screenward(as: "root", ["child", "events", kid]).output
        XCTAssertTrue(events.contains("its compositor was refused"), events)
        XCTAssertTrue(events.contains("is being traced"), events)
    }

    /// X11 apps run in the child's sway through the Xwayland sway starts (detached: its parent
    /// is init), which the daemon leaves alone as it draws through the session's compositor:
    /// xterm is counted as itself. A sway the child nests in theirs is closed.
    func testTheSessionsXwaylandServesX11AppsAndANestedSwayIsClosed() throws {
        let sway = try PrivateWaylandSession(user: kid, in: fixture.work)
        self.sway = sway
        try addSession("c33", leader: sway.leaderPID)
        try manage()
        try waitFor("the agent tracking") { daemonLog.contains("processes from sway's IPC") }
        try sway.swaymsg(["exec", "/usr/bin/xterm"])
        try waitFor("xterm's window") { try sway.windows().contains { $0.appID == nil && $0.focused } }
        try waitFor("xterm counted") { try usedSeconds("debian-xterm.desktop") > 1.5 }
        let xwayland = try fixture.users.run(as: "root", ["pgrep", "-u", kid, "-x", "Xwayland"])
        XCTAssertEqual(xwayland.status, 0, "the session's Xwayland runs: \(daemonLog.suffix(2000))")

        let nested = try sway.start(
            ["/usr/bin/sway", "--config", "/dev/null"], environment: ["WLR_BACKENDS": "wayland"])
        clients.append(nested)
        try waitFor("the nested sway closed") { !nested.isRunning }
        let events = try fixture.screenward(as: "root", ["child", "events", kid]).output
        XCTAssertTrue(events.contains("/usr/bin/sway (pid "), events)
        XCTAssertTrue(events.contains("a display server no agent watches, was closed"), events)
        XCTAssertFalse(events.contains("Xwayland"), events)
        XCTAssertFalse(try bus!.logindAnswer("calls").contains("c33"), "the session stays open")
    }

    /// The child puts a listener of their own where sway's socket was: the next agent finds
    /// another process there, refuses it, and the session is locked, not left unenforced.
    func testASocketTheChildPutsInPlaceOfSwaysIsRefused() throws {
        let sway = try PrivateWaylandSession(user: kid, in: fixture.work)
        self.sway = sway
        try addSession("c32", leader: sway.leaderPID)
        try manage()
        try waitFor("the agent tracking") { daemonLog.contains("processes from sway's IPC") }
        let socket = sway.runtimeDirectory.appendingPathComponent(sway.display).path
        let impostor = try sway.start([
            "/usr/bin/python3", "-c",
            """
            import os, socket, time
            os.rename('\(socket)', '\(socket).moved')
            listener = socket.socket(socket.AF_UNIX)
            listener.bind('\(socket)')
            listener.listen()
            print('listening', flush=True)
            time.sleep(120)
            """,
        ])
        clients.append(impostor)
        _ = try impostor.waitForOutputLines(1, timeout: 10)
        let agent = try XCTUnwrap(fixture.agentPID(session: "c32"))
        kill(agent, SIGKILL)
        try waitFor("the session locked", timeout: 30) { try bus!.logindAnswer("calls").contains("LockSession c32") }
        XCTAssertTrue(daemonLog.contains("not by the session's compositor"), daemonLog)
    }

    func testASwayStartedWithTheLoadersVariablesIsRefusedAndItsSessionEnded() throws {
        let sway = try PrivateWaylandSession(
            user: kid, in: fixture.work, extraEnvironment: ["LD_PRELOAD=/lib/x86_64-linux-gnu/libm.so.6"])
        self.sway = sway
        try addSession("c31", leader: sway.leaderPID)
        try manage()
        try waitFor("the session ended") { try bus!.logindAnswer("calls").contains("TerminateSession c31") }
        let events = try fixture.screenward(as: "root", ["child", "events", kid]).output
        XCTAssertTrue(events.contains("a Wayland session was ended (session c31"), events)
        XCTAssertTrue(events.contains("its compositor was refused"), events)
        XCTAssertTrue(events.contains("was started with LD_PRELOAD set"), events)
        XCTAssertNil(fixture.agentPID(session: "c31"))
    }

    // MARK: Helpers

    private var daemonLog: String { fixture.daemon?.standardError ?? "" }

    /// The child becomes managed once their session runs (a compositor of theirs that no
    /// session led would be closed as a display server of their own).
    private func manage() throws {
        XCTAssertEqual(try fixture.screenward(as: "root", ["child", "add", kid]).status, 0)
    }

    private func addSession(_ id: String, leader: Int32) throws {
        try bus!.logind(
            "add-session \(id) uid=\(uid) name=\(kid) type=wayland service=lightdm display= active=yes leader=\(leader)"
        )
    }

    private func agentUID() throws -> String {
        try fixture.users.run(as: "root", ["id", "-u", fixture.agentUser]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func usedSeconds(_ app: String) throws -> Double {
        let run = try fixture.screenward(as: "root", ["usage", "--user", kid, "--json"])
        let figures = try JSONDecoder().decode(UsageFigures.self, from: Data(run.output.utf8))
        return figures.apps.filter { $0.id == app }.map(\.seconds).reduce(0, +)
    }

    private func waitFor(_ what: String, timeout: TimeInterval = 20, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return }
            Thread.sleep(forTimeInterval: 0.1)
        }
        XCTFail("timed out waiting for \(what)\n\(daemonLog.suffix(4000))")
        throw HarnessError.timedOut(what)
    }
}
