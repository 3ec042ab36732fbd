import Foundation
import Glibc
@_spi(Screenward) import ManagedSettings
@testable import ScreenwardCore
import SessionHarness
import TestSupport
import XCTest

/// A managed user's desktop as it is on a real machine, with everything real but logind
/// (the fake one, on a private system bus): the child's own Xvfb with an X cookie of
/// their own, openbox and a game running as the child, and the system daemon as root.
final class ManagedDesktop {
    let fixture: DaemonFixture
    let kid: String
    let uid: UInt32
    let display: String
    let authority: String
    let bus: PrivateLogindBus
    private var processes: [ChildProcess] = []

    /// Ends the test unless it runs as root with what a desktop needs.
    static func requirements() throws {
        try DaemonFixture.requireRoot()
        for (program, package) in [("Xvfb", "xvfb"), ("openbox", "openbox"), ("xauth", "xauth"), ("dbus-daemon", "dbus-daemon"), ("xdotool", "xdotool")] {
            _ = try requireProgram(program, package: package)
        }
    }

    /// The child's X session with the game on screen; the daemon is not started yet.
    init(fixture: DaemonFixture) throws {
        self.fixture = fixture
        kid = try fixture.users.add("kid")
        uid = try XCTUnwrap(UInt32(try fixture.users.run(as: "root", ["id", "-u", kid]).output.trimmingCharacters(in: .whitespacesAndNewlines)))
        authority = "/home/\(kid)/.Xauthority"
        display = (100...199).map { ":\($0)" }.first { !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\($0.dropFirst())") } ?? ":199"
        let cookie = (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        bus = try PrivateLogindBus()
        guard try fixture.users.run(as: kid, ["xauth", "-f", authority, "add", display, ".", cookie]).status == 0 else {
            throw LocalUsersError(description: "xauth add failed for \(kid)")
        }
        processes.append(
            try ChildProcess(
                try requireProgram("Xvfb", package: "xvfb"), [display, "-auth", authority, "-nolisten", "tcp", "-screen", "0", "1024x768x24"]))
        try waitFor("the child's X server") { fixture.users.runQuietly(as: kid, ["xdpyinfo"], environment: x) }
        processes.append(try startAsKid(["openbox", "--sm-disable"]))
        processes.append(try startAsKid([fixture.program("screenward-testwindow"), "--window", "game.Game:Game"]))
    }

    /// The child's X environment.
    var x: [String: String] { ["DISPLAY": display, "XAUTHORITY": authority] }

    /// Starts `arguments` as the child in their session, against the test's daemon.
    func startAsKid(_ arguments: [String], environment: [String: String] = [:]) throws -> ChildProcess {
        let assignments = x.merging(["SCREENWARD_DAEMON_SOCKET": fixture.socket, "HOME": "/home/\(kid)"]) { $1 }.merging(environment) { $1 }
        let process = try ChildProcess(
            URL(fileURLWithPath: "/usr/sbin/runuser"),
            ["-u", kid, "--", "/usr/bin/env"] + assignments.map { "\($0.key)=\($0.value)" } + arguments)
        processes.append(process)
        return process
    }

    /// Runs `arguments` as the child in their session and waits for it.
    func runAsKid(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, output: String, error: String) {
        try fixture.users.run(as: kid, arguments, environment: x.merging(["SCREENWARD_DAEMON_SOCKET": fixture.socket]) { $1 }.merging(environment) { $1 })
    }

    /// Starts the daemon on the private bus, makes the child managed, and (once the
    /// daemon runs) tells logind their session `session` is active.
    func startManagedSession(_ session: String = "c9", before: () throws -> Void = {}) throws {
        try fixture.startDaemon(environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
        let added = try fixture.screenward(as: "root", ["child", "add", kid])
        guard added.status == 0 else { throw LocalUsersError(description: "child add: \(added.error)") }
        try before()
        try bus.logind("add-session \(session) uid=\(uid) name=\(kid) type=x11 display=\(display) active=yes leader=1")
        try waitFor("the session's agent to attach") { (fixture.daemon?.standardError ?? "").contains("session \(session): agent attached") }
    }

    /// Starts the managed session with the game shielded by a store of the child's, as
    /// an app a guardian authorised would hold it (written while the daemon is stopped;
    /// ChildAuthorizationTests asks a guardian for real).
    func startSessionWithTheGameShielded(_ session: String = "c9") throws {
        try startManagedSession(session) {
            fixture.stopDaemon()
            let home = ChildHomes(stateDirectory: fixture.state).home(for: uid)
            let minter = TokenMinter(secret: try DeviceSecret.loadOrCreate(at: home.deviceSecretURL))
            let game = minter.applicationToken(for: AppIdentity(key: .windowClass("Game"), displayName: "Game"))
            let ledger = try Ledger(url: home.ledgerURL)
            _ = try ledger.authorize(client: "org.example.family", member: "child", grantKey: "test", at: Date())
            try ledger.saveStore(
                client: "org.example.family", name: "games",
                contents: StoreContents(shield: ShieldSettings(applications: [game]), application: .init()), at: Date())
            try fixture.startDaemon(environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
        }
        try waitFor("the shield over the game") { coverReports(1) >= 1 }
    }

    /// What the fake logind was asked to do (LockSession, TerminateSession).
    func logindCalls() throws -> String {
        try bus.logindAnswer("calls")
    }

    /// How many times the daemon has heard its agent report `count` covered windows.
    func coverReports(_ count: Int) -> Int {
        (fixture.daemon?.standardError ?? "").components(separatedBy: "\(count) window(s) covered").count - 1
    }

    /// Saves what the child's screen shows (for the README and for looking at failures).
    func screenshot(_ name: String) {
        let folder = URL(fileURLWithPath: ProcessInfo.processInfo.environment["SCREENWARD_SCREENSHOTS"] ?? NSTemporaryDirectory())
        let path = folder.appendingPathComponent(name).path
        if let result = try? LocalUsers.capture("/usr/bin/env", ["DISPLAY=\(display)", "XAUTHORITY=\(authority)", "import", "-window", "root", path]),
            result.status == 0
        {
            print("screenshot: \(path)")
        }
    }

    func waitFor(_ what: String, timeout: TimeInterval = 20, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while try !condition() {
            guard Date() < deadline else {
                throw LocalUsersError(description: "no \(what) within \(timeout) s; daemon: \(fixture.daemon?.standardError.suffix(3000) ?? "")")
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    func tearDown() {
        fixture.stopDaemon()
        for process in processes.reversed() where process.isRunning { process.stop(grace: 2) }
        fixture.tearDown()
    }
}
