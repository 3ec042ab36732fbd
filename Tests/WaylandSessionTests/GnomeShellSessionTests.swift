import Foundation
import SessionHarness
import TestSupport
import XCTest

/// The agent in a real GNOME Shell session: Debian's gnome-shell run headless as a real account,
/// on a session bus of its own and a private system bus, with Screenward's extension installed
/// as the system installs it; real Wayland clients (Mousepad's GTK 3, mpv); the agent and the
/// command line as that account. The shield is seen in the Shell's own picture (an extension of
/// the test's allows it one), and pressed through Mutter's remote desktop keyboard.
final class GnomeShellSessionTests: AccountSessionTestCase {

    override func setUpWithError() throws {
        try super.setUpWithError()
        guard geteuid() == 0 else { try cannotRun("GNOME Shell runs as a real account this test makes: root only") }
        guard PrivateGnomeShellSession.canStart() else {
            try cannotRun("gnome-shell, dbus-run-session or gdbus is missing (apt-get install gnome-shell dbus-bin)")
        }
        _ = try requireProgram("mousepad", package: "mousepad")
        _ = try requireProgram("mpv", package: "mpv")
        _ = try requireProgram("convert", package: "imagemagick")
        try makeWork("gnome")
    }

    func testTheFocusedWindowIsCountedAndAShieldedOneCoveredByTheShell() throws {
        let shell = try PrivateGnomeShellSession(user: try makeAccount("gia"), in: work)
        session = shell
        try startAgent(in: shell, ["--verbose"])
        XCTAssertTrue(agentLog.contains("GNOME Shell's Screenward extension"), agentLog)
        let mousepad = try open(["mousepad", "--disable-server"], in: shell, wmClass: "mousepad")
        let before = try usageSeconds(in: shell)
        // mpv has the focus from its window's report to its end: at least the sleep between.
        let mpv = try open(
            ["mpv", "--vo=wlshm", "--no-audio", "--loop=inf", "--force-window=yes", "av://lavfi:testsrc=size=320x240"],
            in: shell, wmClass: "mpv")
        let spanStart = Date()
        Thread.sleep(forTimeInterval: 2)
        let slept = Date().timeIntervalSince(spanStart)
        mpv.stop(grace: 1)
        try waitFor("the focus back on Mousepad") {
            agentLog.components(separatedBy: "gnome-shell: mousepad").count > 2
        }
        let span = Date().timeIntervalSince(spanStart)
        Thread.sleep(forTimeInterval: 0.5)
        let usage = try usageSeconds(in: shell)
        let counted = (usage["mpv.desktop"] ?? 0) - (before["mpv.desktop"] ?? 0)
        XCTAssertGreaterThanOrEqual(counted, slept - 0.1, "\(usage)\n\(agentLog)")
        XCTAssertLessThanOrEqual(counted, span + 0.5, "\(usage)")

        // Mousepad, focused, is shielded: the Shell draws the shield over its stage, and its time stops.
        XCTAssertEqual(try cli(["shield", "add", "--app", "org.xfce.mousepad.desktop"], in: shell).status, 0)
        try waitFor("the shield drawn") { agentLog.contains("shield: drawn over") }
        let shields = try cli(["shields"], in: shell).output
        XCTAssertTrue(shields.contains("shield overlay"), shields)
        XCTAssertTrue(shields.contains("1280x720") || shields.contains("1280 720"), shields)
        _ = try LocalUsers.capture("/usr/bin/chmod", ["1777", work.path])
        // On the screen: the default look's blue button, in the middle, a little below the centre.
        let picture = work.appendingPathComponent("gnome-shield.png")
        try shell.screenshot(to: picture)
        let column = try LocalUsers.capture(
            "/usr/bin/convert", [picture.path, "-crop", "1x120+640+400", "-depth", "8", "txt:-"])
        XCTAssertTrue(column.output.lowercased().contains("#0a84ff"), column.output.suffix(2000) + "")
        let covered = try usageSeconds(in: shell)["org.xfce.mousepad.desktop"] ?? 0
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertEqual(try usageSeconds(in: shell)["org.xfce.mousepad.desktop"] ?? 0, covered, accuracy: 0.2, agentLog)
        // Return, on a keyboard, presses OK, whose default closes the app: its process is ended.
        try shell.press(keysyms: [0xff0d])
        try waitFor("Mousepad ended") { !mousepad.isRunning }
        try waitFor("the shield down") { agentLog.contains("shield: uncovered") }
    }

    /// The Shell's idle monitor: no input for the threshold stops the count, a key resumes it.
    func testNoInputForTheThresholdStopsTheCountAndAKeyResumesIt() throws {
        let shell = try PrivateGnomeShellSession(user: try makeAccount("gis"), in: work)
        session = shell
        try startAgent(in: shell, ["--verbose", "--idle-threshold", "2"])
        try open(["mousepad", "--disable-server"], in: shell, wmClass: "mousepad")
        try shell.press(keysyms: [0xffe1])  // Shift
        try waitFor("idle") { try cli(["status"], in: shell).output.contains("Idle: yes") }
        let idle = try usageSeconds(in: shell)["org.xfce.mousepad.desktop"] ?? 0
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertEqual(try usageSeconds(in: shell)["org.xfce.mousepad.desktop"] ?? 0, idle, accuracy: 0.05, agentLog)
        try shell.press(keysyms: [0xffe1])
        try waitFor("input again") { try cli(["status"], in: shell).output.contains("Idle: no") }
        Thread.sleep(forTimeInterval: 1)
        XCTAssertGreaterThan((try usageSeconds(in: shell)["org.xfce.mousepad.desktop"] ?? 0) - idle, 0.5, agentLog)

    }

    /// The extension tries the agent's socket again every second: an agent started again
    /// (after one ended) is told the focus, and can draw shields.
    func testTheExtensionFindsAnAgentStartedAgain() throws {
        let shell = try PrivateGnomeShellSession(user: try makeAccount("gir"), in: work)
        session = shell
        try startAgent(in: shell, ["--verbose"])
        try open(["mousepad", "--disable-server"], in: shell, wmClass: "mousepad")
        agent?.stop(grace: 2)
        let restarted = Date()
        try startAgent(in: shell, ["--verbose"])
        try waitFor("the focus told to the new agent", timeout: 10) { agentLog.contains("gnome-shell: mousepad (pid ") }
        print("an agent started again → told the focus in \(Int(Date().timeIntervalSince(restarted) * 1000)) ms")
        XCTAssertEqual(try cli(["shield", "add", "--app", "org.xfce.mousepad.desktop"], in: shell).status, 0)
        try waitFor("the shield drawn") { agentLog.contains("shield: drawn over") }
    }

    func testWithoutTheExtensionTheAgentSaysHowToTurnItOn() throws {
        let shell = try PrivateGnomeShellSession(user: try makeAccount("gil"), in: work, extensionEnabled: false)
        session = shell
        let run = try shell.run(
            ["\(bin)/screenward-agent", "--wayland-display", shell.display],
            environment: ["SCREENWARD_DAEMON_SOCKET": "/nonexistent/daemon.sock"])
        XCTAssertNotEqual(run.status, 0)
        XCTAssertTrue(run.error.contains("gnome-extensions enable screenward@screenward.org"), run.error)
    }

    @discardableResult
    private func open(_ arguments: [String], in shell: PrivateGnomeShellSession, wmClass: String) throws
        -> ChildProcess
    {
        let client = try shell.start(arguments)
        clients.append(client)
        try waitFor("\(arguments[0])'s window") { agentLog.contains("gnome-shell: \(wmClass) (pid ") }
        return client
    }
}
