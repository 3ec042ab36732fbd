import Foundation
import Glibc
@_spi(Screenward) import ManagedSettings
@_spi(Screenward) import ScreenwardCore

/// A managed user's desktop as it is on a real machine, with everything real but logind
/// (the fake one, on a private system bus): the child's own Xvfb with an X cookie of
/// their own, openbox and a game running as the child, and the system daemon as root.
public final class ManagedDesktopRig {
    public let fixture: DaemonRig
    public let kid: String
    public let uid: UInt32
    public let display: String
    public let authority: String
    public let bus: PrivateLogindBus
    private var processes: [ChildProcess] = []

    /// The programs a managed desktop needs, with their Debian packages.
    public static let programs = [
        ("Xvfb", "xvfb"), ("openbox", "openbox"), ("xauth", "xauth"), ("dbus-daemon", "dbus-daemon"),
        ("xdotool", "xdotool"),
    ]

    /// Why a managed desktop cannot run here, or nil when it can.
    public static func missingRequirement() -> String? {
        if let missing = DaemonRig.missingRequirement() { return missing }
        for (program, package) in programs where findProgram(program) == nil {
            return "\(program) is missing (apt-get install \(package))"
        }
        return nil
    }

    /// `name` on PATH, if it is there.
    public static func findProgram(_ name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent(name) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// The child's X session with the game on screen; the daemon is not started yet.
    /// The ids of the windows the child's test program shows, in the order asked.
    public private(set) var windows: [String] = []

    /// The child's X session with `windowSpecs` on screen (screenward-testwindow's
    /// `INSTANCE.CLASS:TITLE`); the daemon is not started yet.
    public init(fixture: DaemonRig, windows windowSpecs: [String] = ["game.Game:Game"]) throws {
        self.fixture = fixture
        kid = try fixture.users.add("kid")
        guard
            let uid = UInt32(
                try fixture.users.run(as: "root", ["id", "-u", kid]).output.trimmingCharacters(
                    in: .whitespacesAndNewlines))
        else {
            throw LocalUsersError(description: "no uid for \(kid)")
        }
        self.uid = uid
        authority = "/home/\(kid)/.Xauthority"
        let cookie = (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        bus = try PrivateLogindBus(outsideSessions: true)
        // The server reads its cookie from a file of the rig's (it takes every cookie there,
        // whatever display an entry names) and picks a free display itself (-displayfd), so
        // runs beside this one never race for a number; the child's own file then names it.
        let serverAuthority = fixture.work.appendingPathComponent("xserver-\(kid).auth").path
        guard try LocalUsers.capture("/usr/bin/xauth", ["-f", serverAuthority, "add", ":0", ".", cookie]).status == 0
        else {
            throw LocalUsersError(description: "xauth add failed for the child's X server")
        }
        let (server, display) = try PrivateXSession.startServer(
            Self.findProgram("Xvfb") ?? URL(fileURLWithPath: "/usr/bin/Xvfb"),
            ["-auth", serverAuthority, "-nolisten", "tcp", "-screen", "0", "1024x768x24"])
        processes.append(server)
        self.display = display
        guard try fixture.users.run(as: kid, ["xauth", "-f", authority, "add", display, ".", cookie]).status == 0 else {
            throw LocalUsersError(description: "xauth add failed for \(kid)")
        }
        try waitFor("the child's X server") { fixture.users.runQuietly(as: kid, ["xdpyinfo"], environment: x) }
        processes.append(try startAsKid(["openbox", "--sm-disable"]))
        let windowProgram = try startAsKid(
            [fixture.program("screenward-testwindow")] + windowSpecs.flatMap { ["--window", $0] })
        windows = Array(try windowProgram.waitForOutputLines(windowSpecs.count, timeout: 20).prefix(windowSpecs.count))
    }

    /// Ends the child's X server (as a crash, or the child killing it, would).
    public func killXServer() {
        processes.first?.signal(SIGKILL)
    }

    /// The child's X environment.
    public var x: [String: String] { ["DISPLAY": display, "XAUTHORITY": authority] }

    /// Starts `arguments` as the child in their session, against the test's daemon.
    public func startAsKid(_ arguments: [String], environment: [String: String] = [:]) throws -> ChildProcess {
        let assignments = x.merging(["SCREENWARD_DAEMON_SOCKET": fixture.socket, "HOME": "/home/\(kid)"]) { $1 }
            .merging(environment) { $1 }
        let process = try ChildProcess(
            URL(fileURLWithPath: "/usr/sbin/runuser"),
            ["-u", kid, "--", "/usr/bin/env"] + assignments.map { "\($0.key)=\($0.value)" } + arguments)
        processes.append(process)
        return process
    }

    /// Runs `arguments` as the child in their session and waits for it.
    public func runAsKid(_ arguments: [String], environment: [String: String] = [:]) throws -> (
        status: Int32, output: String, error: String
    ) {
        try fixture.users.run(
            as: kid, arguments,
            environment: x.merging(["SCREENWARD_DAEMON_SOCKET": fixture.socket]) { $1 }.merging(environment) { $1 })
    }

    /// Starts the daemon on the private bus, makes the child managed, and (once the
    /// daemon runs) tells logind their session `session` is active.
    public func startManagedSession(_ session: String = "c9", before: () throws -> Void = {}) throws {
        try fixture.startDaemon(environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
        let added = try fixture.screenward(as: "root", ["child", "add", kid])
        guard added.status == 0 else { throw LocalUsersError(description: "child add: \(added.error)") }
        try before()
        try bus.logind("add-session \(session) uid=\(uid) name=\(kid) type=x11 display=\(display) active=yes leader=1")
        try waitFor("the session's agent to attach") {
            (fixture.daemon?.standardError ?? "").contains("session \(session): agent attached")
        }
    }

    /// Starts the managed session with the game shielded by a store of the child's, as
    /// an app a guardian authorised would hold it (written while the daemon is stopped;
    /// ChildAuthorizationTests asks a guardian for real).
    public func startSessionWithTheGameShielded(_ session: String = "c9") throws {
        try startSession(session, shielding: [AppIdentity(key: .windowClass("Game"), displayName: "Game")])
        try waitFor("the shield over the game") { coverReports(1) >= 1 }
    }

    /// Starts the managed session with `applications` shielded by a store of the child's,
    /// which holds `settings` too.
    public func startSession(
        _ session: String = "c9", shielding applications: [AppIdentity], settings: ApplicationSettings = .init()
    ) throws {
        try startManagedSession(session) {
            fixture.stopDaemon()
            let home = ChildHomes(stateDirectory: fixture.state).home(for: uid)
            let minter = TokenMinter(secret: try DeviceSecret.loadOrCreate(at: home.deviceSecretURL))
            let tokens = Set(applications.map(minter.applicationToken(for:)))
            let ledger = try Ledger(url: home.ledgerURL)
            _ = try ledger.authorize(client: "org.example.family", member: "child", grantKey: "test", at: Date())
            try ledger.saveStore(
                client: "org.example.family", name: "games",
                contents: StoreContents(
                    shield: ShieldSettings(applications: tokens.isEmpty ? nil : tokens), application: settings),
                at: Date())
            try fixture.startDaemon(environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
        }
    }

    /// What the fake logind was asked to do (LockSession, TerminateSession).
    public func logindCalls() throws -> String {
        try bus.logindAnswer("calls")
    }

    /// The pid of the agent the daemon runs for `session`.
    public func agentPID(session: String = "c9") -> Int32? {
        fixture.agentPID(session: session)
    }

    /// How many agents have attached so far.
    public func attachCount() -> Int {
        (fixture.daemon?.standardError ?? "").components(separatedBy: ": agent attached").count - 1
    }

    /// The child's recorded use of application `id` (as `screenward usage` names it), all time.
    public func usageSeconds(of id: String) throws -> Double {
        let result = try fixture.screenward(
            as: "root", ["usage", "--user", kid, "--json", "--since", "2000-01-01", "--until", "now"])
        guard result.status == 0,
            let report = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any],
            let apps = report["apps"] as? [[String: Any]]
        else { throw LocalUsersError(description: "screenward usage --user \(kid): \(result.error)") }
        return apps.first { $0["id"] as? String == id }?["seconds"] as? Double ?? 0
    }

    /// How many times the daemon has heard its agent report `count` covered windows.
    public func coverReports(_ count: Int) -> Int {
        (fixture.daemon?.standardError ?? "").components(separatedBy: "\(count) window(s) covered").count - 1
    }

    /// What the agent reported covering last: how many windows, and the stores that shield
    /// them (`a, b`; empty for none); nil before any report.
    public func lastCoverReport() -> (count: Int, stores: String)? {
        let log = fixture.daemon?.standardError ?? ""
        guard let line = log.split(separator: "\n").last(where: { $0.contains(" window(s) covered") }),
            let said = line.range(of: ": ", options: .backwards),
            let count = Int(line[said.upperBound...].prefix { $0.isNumber })
        else { return nil }
        let stores = line.range(of: "covered (").map { String(line[$0.upperBound...].dropLast()) } ?? ""
        return (count, stores)
    }

    /// Whether the agent running now for `session` has attached and, since, reported
    /// covering `count` windows (unlike counting reports, this holds however the report
    /// and the question interleave).
    public func currentAgentCovers(_ count: Int, session: String = "c9") -> Bool {
        let log = fixture.daemon?.standardError ?? ""
        guard let pid = agentPID(session: session),
            let attached = log.range(of: "session \(session): agent attached (pid \(pid))", options: .backwards)
        else {
            return false
        }
        return log[attached.upperBound...].contains("session \(session): \(count) window(s) covered")
    }

    /// The child presses the second button of the shield over window `index` with real
    /// input: a click on the shield, then Tab and Return.
    public func pressSecondButtonOnShield(over index: Int = 0) throws -> (status: Int32, output: String, error: String)
    {
        let frame = try geometry(of: windows[index])
        return try runAsKid([
            "xdotool", "mousemove", "\(frame.x + 20)", "\(frame.y + 20)", "click", "1", "sleep", "0.3", "key", "Tab",
            "key", "Return",
        ])
    }

    /// Saves what the child's screen shows (for the README and for looking at failures).
    public func screenshot(_ name: String) {
        let folder = URL(
            fileURLWithPath: ProcessInfo.processInfo.environment["SCREENWARD_SCREENSHOTS"] ?? NSTemporaryDirectory())
        let path = folder.appendingPathComponent(name).path
        if let result = try? LocalUsers.capture(
            "/usr/bin/env", ["DISPLAY=\(display)", "XAUTHORITY=\(authority)", "import", "-window", "root", path]),
            result.status == 0
        {
            print("screenshot: \(path)")
        }
    }

    /// The colour of one pixel of the child's screen, as (red, green, blue), read with
    /// ImageMagick's `import`; nil when it cannot be read.
    public func pixel(x: Int, y: Int) -> (red: Int, green: Int, blue: Int)? {
        guard
            let result = try? LocalUsers.capture(
                "/usr/bin/env",
                [
                    "DISPLAY=\(display)", "XAUTHORITY=\(authority)", "import", "-window", "root", "-crop",
                    "1x1+\(x)+\(y)", "-depth", "8", "txt:-",
                ]),
            // "# ImageMagick pixel enumeration: …" then "0,0: (46,125,51)  #2E7D33  srgb(…)".
            result.status == 0, let pixel = result.output.range(of: "0,0:"),
            let hash = result.output[pixel.upperBound...].firstIndex(of: "#")
        else { return nil }
        let hex = result.output[result.output.index(after: hash)...].prefix(6)
        guard hex.count == 6, let value = Int(hex, radix: 16) else { return nil }
        return (value >> 16, (value >> 8) & 0xff, value & 0xff)
    }

    /// Where the child's window `id` is on the screen (inside its frame).
    public func geometry(of id: String) throws -> ScreenRect {
        let result = try fixture.users.run(as: kid, ["xdotool", "getwindowgeometry", "--shell", id], environment: x)
        var values: [String: Int] = [:]
        for line in result.output.split(separator: "\n") {
            let parts = line.split(separator: "=")
            if parts.count == 2, let value = Int(parts[1]) { values[String(parts[0])] = value }
        }
        guard let x = values["X"], let y = values["Y"], let width = values["WIDTH"], let height = values["HEIGHT"]
        else {
            throw LocalUsersError(description: "no geometry for window \(id): \(result.output) \(result.error)")
        }
        return ScreenRect(x: x, y: y, width: width, height: height)
    }

    public func waitFor(_ what: String, timeout: TimeInterval = 20, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while try !condition() {
            guard Date() < deadline else {
                throw LocalUsersError(
                    description:
                        "no \(what) within \(timeout) s; daemon: \(fixture.daemon?.standardError.suffix(3000) ?? "")")
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    public func tearDown() {
        fixture.stopDaemon()
        for process in processes.reversed() where process.isRunning { process.stop(grace: 2) }
        bus.stop()
        fixture.tearDown()
    }
}
