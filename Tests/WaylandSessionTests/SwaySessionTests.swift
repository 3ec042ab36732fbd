import Foundation
import SessionHarness
import TestSupport
import XCTest

/// The agent in a real wlroots session: sway run headless as a real account, real Wayland
/// clients (foot, Mousepad's GTK 3), the agent and the command line as that account, keys from a
/// virtual keyboard and pictures from grim.
final class SwaySessionTests: AccountSessionTestCase {

    override func setUpWithError() throws {
        try super.setUpWithError()
        try requireSway()
        _ = try requireProgram("mousepad", package: "mousepad")
        _ = try requireProgram("convert", package: "imagemagick")
        try makeWork("sway")
    }

    // MARK: The tests

    func testTheFocusedWindowIsCountedAsItsProcesssApplication() throws {
        let sway = try startSession()
        try startAgent(in: sway)
        // A foot whose app_id names no application: its process (/usr/bin/foot) says it is Foot.
        let foot = try open(["foot", "--app-id=no-such-application"], in: sway, appID: "no-such-application")
        let mousepad = try open(["mousepad"], in: sway, appID: "mousepad")
        try sway.swaymsg(["[app_id=mousepad] focus"])
        Thread.sleep(forTimeInterval: 1)
        // What foot counted while it opened is left out: from here, 3 s of foot between two focus
        // changes (each timed around its swaymsg, which takes a few milliseconds).
        let before = try usageSeconds(in: sway)
        let footFrom = Date()
        try sway.swaymsg(["[app_id=no-such-application] focus"])
        Thread.sleep(forTimeInterval: 3)
        try sway.swaymsg(["[app_id=mousepad] focus"])
        let footFor = Date().timeIntervalSince(footFrom)
        Thread.sleep(forTimeInterval: 1)
        let usage = try usageSeconds(in: sway)
        let footCounted = (usage["foot.desktop"] ?? 0) - (before["foot.desktop"] ?? 0)
        XCTAssertEqual(footCounted, footFor, accuracy: 0.25, "\(usage)\n\(agentLog)")
        XCTAssertGreaterThan(
            (usage["org.xfce.mousepad.desktop"] ?? 0) - (before["org.xfce.mousepad.desktop"] ?? 0), 0.7)
        XCTAssertNil(usage["wmclass:no-such-application"], "the app_id was counted, not the process: \(usage)")
        XCTAssertTrue(agentLog.contains("processes from sway's IPC"), agentLog)
        _ = (foot, mousepad)
    }

    func testNoInputForTheThresholdStopsTheCountAndAKeyResumesIt() throws {
        let sway = try startSession()
        try startAgent(in: sway, idleThreshold: 2)
        _ = try open(["foot"], in: sway, appID: "foot")
        try waitFor("the person to be away") { try status(in: sway).contains("Idle: yes") }
        XCTAssertTrue(agentLog.contains("idle from org_kde_kwin_idle") || agentLog.contains("ext-idle-notify"))
        // Nothing counts while away.
        let away = try usageSeconds(in: sway)["foot.desktop"] ?? 0
        XCTAssertLessThan(away, 2.5, "more than the threshold was counted before the person was away")
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertEqual(try usageSeconds(in: sway)["foot.desktop"] ?? 0, away, accuracy: 0.05)
        // A key brings them back, and foot counts again.
        try sway.press(["a"])
        try waitFor("the person to be back") { try status(in: sway).contains("Idle: no") }
        Thread.sleep(forTimeInterval: 1)
        XCTAssertGreaterThan(try usageSeconds(in: sway)["foot.desktop"] ?? 0, away + 0.8)
    }

    /// mpv inhibits idle while it plays (`zwp_idle_inhibit_manager_v1`), as browsers do for a
    /// video: the compositor never calls the seat idle, so the time counts without input. The
    /// test above is the control: the same threshold with a still terminal.
    func testAPlayingVideoCountsWithoutInput() throws {
        _ = try requireProgram("mpv", package: "mpv")
        let sway = try startSession()
        try startAgent(in: sway, idleThreshold: 2)
        _ = try open(
            ["mpv", "--vo=wlshm", "--no-audio", "--loop=inf", "av://lavfi:testsrc=size=320x240:rate=25"], in: sway,
            appID: "mpv")
        try sway.press(["Shift_L"])
        let start = try usageSeconds(in: sway)["mpv.desktop"] ?? 0
        Thread.sleep(forTimeInterval: 5)
        let now = try status(in: sway)
        XCTAssertTrue(now.contains("Idle: no"), now)
        XCTAssertGreaterThan((try usageSeconds(in: sway)["mpv.desktop"] ?? 0) - start, 4.5, agentLog)
    }

    func testAShieldedAppIsCoveredOverEverythingAndItsButtonClosesIt() throws {
        let sway = try startSession()
        try startAgent(in: sway)
        _ = try open(["mousepad"], in: sway, appID: "mousepad")
        let foot = try open(["foot"], in: sway, appID: "foot")
        // Full screen: above the windows, where only the overlay layer is higher.
        try sway.swaymsg(["[app_id=foot] fullscreen enable"])
        XCTAssertEqual(try cli(["shield", "add", "--app", "foot.desktop"], in: sway).status, 0)
        try waitFor("the shield over foot") { try cli(["shields"], in: sway).output.contains("shield overlay") }
        try waitFor("the shield on screen") { try shieldButtonShows(in: sway) }
        XCTAssertEqual(try sway.windows().first { $0.appID == "foot" }?.fullscreen, true)
        // What has the focus while covered is nobody's usage.
        let covered = try usageSeconds(in: sway)["foot.desktop"] ?? 0
        Thread.sleep(forTimeInterval: 2)
        XCTAssertEqual(try usageSeconds(in: sway)["foot.desktop"] ?? 0, covered, accuracy: 0.05, agentLog)
        // Enter presses OK, whose default closes the app.
        try sway.press(["Return"])
        try waitFor("foot to be closed") { !foot.isRunning }
        try waitFor("the shield to come down") { !(try shieldButtonShows(in: sway)) }
        XCTAssertTrue(agentLog.contains("shield: closing"), agentLog)
    }

    /// A shielded app's window that takes the focus later is covered as it does, again after
    /// the shield came down in between: the overlay is shown from the focus's news.
    func testAShieldedAppTakingTheFocusIsCoveredEachTime() throws {
        let sway = try startSession()
        try startAgent(in: sway)
        _ = try open(["foot"], in: sway, appID: "foot")
        _ = try open(["mousepad", "--disable-server"], in: sway, appID: "mousepad")
        try sway.swaymsg(["[app_id=foot] focus"])
        XCTAssertEqual(try cli(["shield", "add", "--app", "org.xfce.mousepad.desktop"], in: sway).status, 0)
        for round in 1...2 {
            try sway.swaymsg(["[app_id=mousepad] focus"])
            try waitFor("the shield on screen (\(round))") { try shieldButtonShows(in: sway) }
            XCTAssertTrue(try cli(["shields"], in: sway).output.contains("shield overlay"), agentLog)
            // Lifted, and the focus elsewhere, before the next round.
            XCTAssertEqual(try cli(["shield", "remove", "--app", "org.xfce.mousepad.desktop"], in: sway).status, 0)
            try waitFor("the shield down (\(round))") { !(try shieldButtonShows(in: sway)) }
            try sway.swaymsg(["[app_id=foot] focus"])
            XCTAssertEqual(try cli(["shield", "add", "--app", "org.xfce.mousepad.desktop"], in: sway).status, 0)
        }
    }

    /// A client of the person's maps an overlay of its own once the shield is up (the layer
    /// shell's overlay layer, asking for the keyboard, as the shield does; another color, with
    /// no blue button): sway keeps the overlay mapped first on top, so the shield stays over
    /// it, with the keyboard, and the covered app is still nobody's usage.
    func testAnOverlayMappedAfterTheShieldStaysUnderIt() throws {
        let sway = try startSession()
        let others = work.appendingPathComponent("others")
        try ProgramCopies.install(["screenward-shieldview"], in: others)
        try startAgent(in: sway)
        _ = try open(["foot"], in: sway, appID: "foot")
        XCTAssertEqual(try cli(["shield", "add", "--app", "foot.desktop"], in: sway).status, 0)
        try waitFor("the shield on screen") { try shieldButtonShows(in: sway) }
        let covered = try usageSeconds(in: sway)["foot.desktop"] ?? 0

        let look = work.appendingPathComponent("other-look.json")
        try ##"{"backgroundColor": "#FF00FFFF", "primaryButtonBackgroundColor": "#E0663D"}"##.write(
            to: look, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: look.path)
        let other = try sway.start([
            others.appendingPathComponent("bin/screenward-shieldview").path, "--wayland-overlay", sway.display,
            "--configuration", look.path,
        ])
        clients.append(other)
        XCTAssertEqual(try other.waitForOutputLines(1, timeout: 20), ["shown overlay"], other.standardError)
        for _ in 0..<3 {
            XCTAssertTrue(try shieldButtonShows(in: sway), "the shield stays on top\n\(agentLog)")
            Thread.sleep(forTimeInterval: 0.5)
        }
        XCTAssertEqual(try usageSeconds(in: sway)["foot.desktop"] ?? 0, covered, accuracy: 0.05, agentLog)
        // The keyboard is still the shield's: Return presses its OK, which closes foot.
        try sway.press(["Return"])
        try waitFor("the shield's OK pressed") { agentLog.contains("shield: closing") }
    }

    /// Firefox as a native Wayland client (`MOZ_ENABLE_WAYLAND=1`, no Xwayland): counted as
    /// Firefox ESR by its process, and covered once shielded.
    func testFirefoxOnWaylandIsCountedAndCovered() throws {
        _ = try requireProgram("firefox-esr", package: "firefox-esr")
        let sway = try startSession()
        try startAgent(in: sway)
        try open(
            ["/usr/bin/firefox-esr", "--no-remote", "--new-instance", "about:blank"], in: sway, appID: "firefox-esr",
            environment: ["MOZ_ENABLE_WAYLAND": "1"], timeout: 60)
        try waitFor("Firefox counted") { try usageSeconds(in: sway)["firefox-esr.desktop"] ?? 0 > 1 }
        let xwayland = try LocalUsers.capture("/usr/bin/pgrep", ["-u", sway.user, "-x", "Xwayland"])
        XCTAssertNotEqual(xwayland.status, 0, "Firefox drew through Xwayland: \(xwayland.output)")
        XCTAssertEqual(try cli(["shield", "add", "--app", "firefox-esr.desktop"], in: sway).status, 0)
        try waitFor("the shield over Firefox") { try cli(["shields"], in: sway).output.contains("shield overlay") }
        try waitFor("the shield on screen") { try shieldButtonShows(in: sway) }
        let covered = try usageSeconds(in: sway)["firefox-esr.desktop"] ?? 0
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertEqual(try usageSeconds(in: sway)["firefox-esr.desktop"] ?? 0, covered, accuracy: 0.05, agentLog)
    }

    /// An agent that connected to the compositor and then cannot start (here: no data folder)
    /// says why and exits, letting go of what it held on the connection in order.
    func testAnAgentThatCannotStartAfterConnectingSaysWhy() throws {
        let sway = try startSession()
        // The program alone, with no data folder beside it or above it.
        let bare = work.appendingPathComponent("bare")
        try FileManager.default.createDirectory(at: bare, withIntermediateDirectories: true)
        let program = bare.appendingPathComponent("screenward-agent")
        try FileManager.default.copyItem(atPath: "\(bin)/screenward-agent", toPath: program.path)
        let agent = try sway.start(
            [program.path], environment: ["SCREENWARD_DAEMON_SOCKET": "/nonexistent/daemon.sock"])
        XCTAssertEqual(agent.waitForExit(timeout: 20), 1, agent.standardError)
        XCTAssertTrue(agent.standardError.contains("cannot find Screenward's data file"), agent.standardError)
        XCTAssertFalse(agent.standardError.contains("crashed"), agent.standardError)
    }

    /// The compositor gone is the session ended: the agent saves what it counted and exits.
    func testTheAgentEndsWithItsCompositorAndKeepsWhatItCounted() throws {
        let sway = try startSession()
        try startAgent(in: sway)
        _ = try open(["foot"], in: sway, appID: "foot")
        Thread.sleep(forTimeInterval: 1.5)
        sway.stop()
        let agent = try XCTUnwrap(agent)
        XCTAssertEqual(agent.waitForExit(timeout: 10), 0, agentLog)
        XCTAssertTrue(agentLog.contains("closed the connection: the session has ended; usage saved"), agentLog)
        // Read from the ledger, with no agent running.
        XCTAssertGreaterThan(try usageSeconds(in: sway)["foot.desktop"] ?? 0, 1.2)
    }

    // MARK: The session

    private func startSession() throws -> PrivateWaylandSession {
        let sway = try PrivateWaylandSession(user: try makeAccount("sam"), in: work)
        session = sway
        return sway
    }

    private func startAgent(in sway: PrivateWaylandSession, idleThreshold: Double = 3600) throws {
        try startAgent(in: sway, ["--verbose", "--idle-threshold", String(idleThreshold)])
    }

    /// Starts a client and waits until sway shows its window with `appID`.
    @discardableResult
    private func open(
        _ arguments: [String], in sway: PrivateWaylandSession, appID: String, environment: [String: String] = [:],
        timeout: TimeInterval = 20
    ) throws -> ChildProcess {
        let client = try sway.start(arguments, environment: environment)
        clients.append(client)
        try waitFor("\(arguments[0])'s window", timeout: timeout) {
            try sway.windows().contains { $0.appID == appID }
        }
        return client
    }

    private func status(in sway: PrivateWaylandSession) throws -> String {
        try cli(["status"], in: sway).output
    }

    private func shieldButtonShows(in sway: PrivateWaylandSession) throws -> Bool {
        _ = try LocalUsers.capture("/usr/bin/chmod", ["1777", work.path])
        return try sway.showsShieldButton(scratch: work)
    }

}
