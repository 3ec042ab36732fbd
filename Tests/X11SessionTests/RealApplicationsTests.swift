import Foundation
import ScreenwardCore
import SessionHarness
import XCTest

/// Real programs from Debian's archive, one per toolkit, under the real agent with
/// the system's own desktop entries: each window resolves to the desktop id a person
/// sees in the menu, and is covered once that id is shielded.
///
/// scripts/install-deps.sh installs the programs. Outside CI a missing one skips its
/// test; in CI it fails. scripts/check-applications.sh does the same over larger
/// programs (browsers, LibreOffice, Java, Wine), outside CI.
final class RealApplicationsTests: XSessionTestCase {
    /// GTK 3 without a session bus: no `_GTK_APPLICATION_ID`, two entries running
    /// /usr/bin/mousepad, neither named mousepad.desktop (issue 9).
    func testMousepadWithoutASessionBus() throws {
        try check(RealProgram(package: "mousepad", command: "mousepad", expectedID: "org.xfce.mousepad.desktop"))
    }

    /// GTK 3 on a session bus names its application itself.
    func testMousepadOnASessionBus() throws {
        try check(
            RealProgram(package: "mousepad", command: "mousepad", expectedID: "org.xfce.mousepad.desktop"),
            sessionBus: true)
    }

    /// The X toolkit (Xaw): `xterm`/`XTerm`, Debian's debian-xterm.desktop.
    func testXTerm() throws {
        try check(RealProgram(package: "xterm", command: "xterm", expectedID: "debian-xterm.desktop"))
    }

    /// SDL 2, from /usr/games.
    func testSDLGame() throws {
        try check(RealProgram(package: "sopwith", command: "sopwith", expectedID: "sopwith.desktop"))
    }

    /// Qt 5: `featherpad`/`FeatherPad`.
    func testQtProgram() throws {
        try check(RealProgram(package: "featherpad", command: "featherpad", expectedID: "featherpad.desktop"))
    }

    // MARK: - The check

    struct RealProgram {
        var package: String
        var command: String
        var arguments: [String] = []
        var expectedID: String
    }

    /// Starts `program` in a private session with the real agent, waits until the
    /// agent says its window has the focus as `expectedID` and files its usage under
    /// that id, shields the id, and waits until the agent covers the window.
    private func check(_ program: RealProgram, sessionBus: Bool = false) throws {
        let executable = try Self.locate(program)
        let session = try startXSession()
        defer { session.stop() }
        let bus = sessionBus ? try PrivateDBus() : nil
        defer { bus?.stop() }

        // The system's applications, but nothing of this user's: their entries, their
        // settings and their desktop's bus stay out of it.
        let dataHome = temporary.appendingPathComponent("data")
        let agent = try AgentRun(
            display: session.display, home: home,
            environment: ["XDG_DATA_HOME": dataHome.path, "XDG_DATA_DIRS": "/usr/local/share:/usr/share"])
        defer { agent.stop() }
        let app = try ChildProcess(
            executable, program.arguments,
            environment: try applicationEnvironment(display: session.display, dataHome: dataHome, bus: bus?.address))
        defer { app.stop() }

        var status: [String: Any] = [:]
        let focused = poll(timeout: 40) { () -> Bool in
            status = (try? Self.json(agent.cli(["status", "--json"]))) ?? [:]
            return status["focused_id"] as? String == program.expectedID || !app.isRunning
        }
        XCTAssertTrue(
            focused && app.isRunning,
            "\(program.command): the agent never said \(program.expectedID) had the focus; last status \(status), "
                + "program \(app.isRunning ? "running" : "exited: \(app.standardError.suffix(1000))"), "
                + "windows: \(windowReport(display: session.display)), "
                + "agent log: \(agent.process.standardError.suffix(1500))"
        )
        guard focused && app.isRunning else { return }
        var usage: UsageFigures?
        XCTAssertTrue(
            poll(timeout: 10) { () -> Bool in
                usage = try? agent.usage()
                return usage.map { $0.seconds(of: program.expectedID) > 0 } ?? false
            },
            """
            \(program.command): usage is not filed under \(program.expectedID): \
            \(String(describing: usage?.apps.map(\.id)))
            """
        )

        let added = try agent.cli(["shield", "add", "--app", program.expectedID])
        XCTAssertTrue(added.contains(program.expectedID), added)
        var covered: [CoveredWindow] = []
        let isCovered = poll(timeout: 20) { () -> Bool in
            covered = (try? Self.covered(agent)) ?? []
            return covered.contains { $0.application == program.expectedID }
        }
        XCTAssertTrue(
            isCovered,
            "\(program.command): \(program.expectedID) shielded but not covered; "
                + "covered: \(covered.map(\.application)), agent log: \(agent.process.standardError.suffix(1500))")
    }

    /// What the program gets: the private session's display and only X11 (a test run
    /// from a Wayland desktop must not open windows there), a private home, and
    /// either a private session bus or none at all.
    private func applicationEnvironment(display: String, dataHome: URL, bus: String?) throws -> [String: String] {
        let appHome = temporary.appendingPathComponent("app-home")
        let runtime = temporary.appendingPathComponent("runtime")
        for directory in [appHome, runtime, dataHome] {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: runtime.path)
        return [
            "DISPLAY": display, "WAYLAND_DISPLAY": "", "GDK_BACKEND": "x11", "QT_QPA_PLATFORM": "xcb",
            "SDL_VIDEODRIVER": "x11", "SDL_AUDIODRIVER": "dummy", "NO_AT_BRIDGE": "1",
            "HOME": appHome.path, "XDG_CONFIG_HOME": appHome.appendingPathComponent(".config").path,
            "XDG_CACHE_HOME": appHome.appendingPathComponent(".cache").path,
            "XDG_DATA_HOME": dataHome.path, "XDG_DATA_DIRS": "/usr/local/share:/usr/share",
            "XDG_RUNTIME_DIR": runtime.path,
            "DBUS_SESSION_BUS_ADDRESS": bus ?? "unix:path=\(runtime.path)/no-session-bus",
        ]
    }

    /// The program's path; a skip outside CI and a failure in CI when it is missing.
    private static func locate(_ program: RealProgram) throws -> URL {
        if let found = PrivateXSession.which(program.command) { return found }
        let games = URL(fileURLWithPath: "/usr/games/\(program.command)")
        if FileManager.default.isExecutableFile(atPath: games.path) { return games }
        let message = "\(program.command) is not installed (scripts/install-deps.sh installs \(program.package))"
        if isCI { XCTFail("CI must run the real-application tests: \(message)") }
        throw XCTSkip(message)
    }

    private static var isCI: Bool {
        ["1", "true", "yes"].contains(ProcessInfo.processInfo.environment["CI"]?.lowercased() ?? "")
    }

    private static func json(_ text: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] ?? [:]
    }

    private static func covered(_ agent: AgentRun) throws -> [CoveredWindow] {
        struct Listing: Decodable { var covered: [CoveredWindow]? }
        return try JSONDecoder().decode(Listing.self, from: Data(try agent.cli(["shields", "--json"]).utf8)).covered
            ?? []
    }

    /// Checks `condition` every 200 ms until it holds or `timeout` seconds pass.
    private func poll(timeout: TimeInterval, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.2)
        }
        return condition()
    }

    /// WM_CLASS and pid of each managed window, for a failure message.
    private func windowReport(display: String) -> String {
        guard let xprop = PrivateXSession.which("xprop") else { return "(xprop not installed)" }
        func run(_ arguments: [String]) -> String {
            guard let child = try? ChildProcess(xprop, arguments, environment: ["DISPLAY": display]) else { return "" }
            child.closeInput()
            _ = child.waitForExit(timeout: 5)
            Thread.sleep(forTimeInterval: 0.05)  // Let the pipe hand over the last output.
            return child.outputLines.joined(separator: " ")
        }
        let list = run(["-root", "_NET_CLIENT_LIST"])
        let windows =
            list.split(separator: "#").last?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } ?? []
        return windows.map { run(["-id", $0, "WM_CLASS", "_GTK_APPLICATION_ID", "_NET_WM_PID"]) }.joined(
            separator: "; ")
    }
}
