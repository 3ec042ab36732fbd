import Foundation
import Glibc
@_spi(Screenward) import ManagedSettings
@testable import ScreenwardCore
import SessionHarness
import TestSupport
import XCTest

/// A managed user's X session as it is on a real machine, with everything real but
/// logind (the fake one, on a private system bus): the child's own Xvfb with a cookie
/// of their own, openbox and a game running as the child, and the daemon as root. The
/// daemon starts the session's agent itself, as the agents' user; the agent covers the
/// game the child's stores shield; the child cannot kill it; root's kill -9 brings a new
/// agent and the shield back, and the child's events say what happened.
final class ManagedSessionTests: XCTestCase {
    private var fixture: DaemonFixture!
    private var processes: [Process] = []
    /// Kept open: the test window program ends at the end of its input.
    private var inputs: [Pipe] = []

    override func setUpWithError() throws {
        try DaemonFixture.requireRoot()
        for (program, package) in [("Xvfb", "xvfb"), ("openbox", "openbox"), ("xauth", "xauth"), ("dbus-daemon", "dbus-daemon")] {
            _ = try requireProgram(program, package: package)
        }
        fixture = try DaemonFixture()
    }

    override func tearDown() {
        fixture?.stopDaemon()
        for process in processes.reversed() where process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
        }
        fixture?.tearDown()
    }

    private func start(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let input = Pipe()
        process.standardInput = input
        try process.run()
        processes.append(process)
        inputs.append(input)
    }

    /// How many times the daemon has heard its agent report `count` covered windows.
    private func coverReports(_ count: Int) -> Int {
        (fixture.daemon?.standardError ?? "").components(separatedBy: "\(count) window(s) covered").count - 1
    }

    private func waitFor(_ what: String, timeout: TimeInterval = 20, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            guard Date() < deadline else {
                throw LocalUsersError(description: "no \(what) within \(timeout) s; daemon: \(fixture.daemon?.standardError.suffix(3000) ?? "")")
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    func testTheDaemonsAgentCoversTheChildsShieldedGameAndComesBackAfterAKill() throws {
        let kid = try fixture.users.add("kid")
        let home = "/home/\(kid)"
        let authority = "\(home)/.Xauthority"
        let display = (100...199).map { ":\($0)" }.first { !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\($0.dropFirst())") } ?? ":199"
        let cookie = (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        XCTAssertEqual(try fixture.users.run(as: kid, ["xauth", "-f", authority, "add", display, ".", cookie]).status, 0)
        try start([try requireProgram("Xvfb", package: "xvfb").path, display, "-auth", authority, "-nolisten", "tcp", "-screen", "0", "1024x768x24"])
        let kidX = ["DISPLAY": display, "XAUTHORITY": authority]
        try waitFor("X server") { fixture.users.runQuietly(as: kid, ["xdpyinfo"], environment: kidX) }
        try start(["/usr/sbin/runuser", "-u", kid, "--", "/usr/bin/env", "DISPLAY=\(display)", "XAUTHORITY=\(authority)", "openbox", "--sm-disable"])
        try start([
            "/usr/sbin/runuser", "-u", kid, "--", "/usr/bin/env", "DISPLAY=\(display)", "XAUTHORITY=\(authority)",
            fixture.program("screenward-testwindow"), "--window", "game.Game:Game",
        ])

        // The child is managed; their store shields the game (written while the daemon is stopped).
        let bus = try PrivateLogindBus()
        try fixture.startDaemon(environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
        XCTAssertEqual(try fixture.screenward(as: "root", ["child", "add", kid]).status, 0)
        fixture.stopDaemon()
        let uid = try XCTUnwrap(UInt32(try fixture.users.run(as: "root", ["id", "-u", kid]).output.trimmingCharacters(in: .whitespacesAndNewlines)))
        let childHome = ChildHomes(stateDirectory: fixture.state).home(for: uid)
        let minter = TokenMinter(secret: try DeviceSecret.loadOrCreate(at: childHome.deviceSecretURL))
        let game = minter.applicationToken(for: AppIdentity(key: .windowClass("Game"), displayName: "Game"))
        let ledger = try Ledger(url: childHome.ledgerURL)
        // As an app a guardian authorised would hold it (the `.child` request is not built yet).
        _ = try ledger.authorize(client: "org.example.family", member: "child", grantKey: "test", at: Date())
        try ledger.saveStore(
            client: "org.example.family", name: "games", contents: StoreContents(shield: ShieldSettings(applications: [game]), application: .init()),
            at: Date())
        try fixture.startDaemon(environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])

        // logind says the child's session is there and active: the daemon starts its agent.
        try bus.logind("add-session c9 uid=\(uid) name=\(kid) type=x11 display=\(display) active=yes leader=1")
        try waitFor("shield over the game") { coverReports(1) >= 1 }
        let agent = try XCTUnwrap(Self.agentPID(session: "c9"), "no agent process")
        let owner = try String(contentsOfFile: "/proc/\(agent)/status", encoding: .utf8)
        XCTAssertFalse(owner.contains("Uid:\t\(uid)\t"), "the agent must not run as the child: \(owner.prefix(400))")

        // The child cannot kill it.
        XCTAssertNotEqual(try fixture.users.run(as: kid, ["kill", "-9", "\(agent)"]).status, 0)
        XCTAssertEqual(Self.agentPID(session: "c9"), agent)

        // Root can; a new agent covers the game again.
        let reportsBefore = coverReports(1)
        let killed = Date()
        kill(agent, SIGKILL)
        try waitFor("the shield back after the kill") { coverReports(1) > reportsBefore }
        let back = Date().timeIntervalSince(killed)
        print("kill -9 → new agent's shield reported over the game: \(Int(back * 1000)) ms")
        XCTAssertLessThan(back, 5, "the shield must come back promptly (target: within 1 s; here including GTK's start)")
        XCTAssertNotEqual(Self.agentPID(session: "c9"), agent)

        let events = try fixture.screenward(as: "root", ["child", "events", kid, "--json"])
        XCTAssertTrue(events.output.contains("agent-failed"), events.output)
    }

    /// The pid of the agent the daemon runs for `session`.
    private static func agentPID(session: String) -> Int32? {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = Int32(entry), let cmdline = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(entry)/cmdline")) else { continue }
            let arguments = cmdline.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            if arguments.first?.hasSuffix("screenward-agent") == true, let index = arguments.firstIndex(of: "--managed-session"),
                arguments.indices.contains(index + 1), arguments[index + 1] == session
            {
                return pid
            }
        }
        return nil
    }
}
