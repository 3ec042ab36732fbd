import Foundation
import ScreenwardTesting
import SessionHarness
import X11Session
import XCTest

/// The talks' two apps end to end on a person's own desktop, as a person would run them:
/// installed once, set up once, and from then on nothing of theirs runs until the
/// agent starts their extensions. Real windows, the real agent, the real programs.
final class TalkAppsTests: XSessionTestCase {

    /// Installs `program` with its own `install` subcommand and waits until the agent has
    /// read the new manifest (it watches the folder; no signal is sent).
    private func install(_ program: String, in scene: ShieldScene) throws {
        let before = scene.agent.process.standardError.components(separatedBy: "with extensions").count
        XCTAssertTrue(try runProject(program, ["install"], scene.agent.environment).contains("Installed"))
        scene.wait("the agent to read \(program)'s manifest by itself", timeout: .seconds(10)) {
            scene.agent.process.standardError.components(separatedBy: "with extensions").count > before
        }
    }

    /// Homework (WWDC21): the discouraged game is shielded with Homework's own shield when
    /// the day's interval starts, "Ask for access" redraws it as waiting, and using the
    /// encouraged notes app for the threshold lifts it, all with Homework's extensions
    /// started by the agent.
    func testHomeworkShieldsTheGameUntilTheNotesAppHasBeenUsedForTheThreshold() throws {
        let scene = try startShieldScene()
        defer { scene.stop() }
        let apps = try DemoApplications(display: scene.session.display, windows: ["game.Game", "notes.Notes"])
        let (game, notes) = (id(apps.windows[0]), id(apps.windows[1]))
        let environment = scene.agent.environment
        let homework = try ProjectPrograms.url(of: "homework")
        try scene.agent.allowAccess("org.example.homework")
        try install("homework", in: scene)

        // The guardian's setup: the day's interval runs now; the threshold is 3 s of Notes.
        scene.connection.requestActivation(of: game)
        let now = Date()
        let setup = try runProject(
            "homework",
            [
                "setup", "--discourage", "game.desktop", "--encourage", "notes.desktop", "--threshold", "3s",
                "--from", Self.hourAndMinute(now.addingTimeInterval(-3600)), "--until",
                Self.hourAndMinute(now.addingTimeInterval(3600)),
            ],
            environment)
        XCTAssertTrue(setup.contains("Homework discourages game.desktop"), setup)

        // intervalDidStart: the started monitor shields the game; the started data source draws it.
        let shield = try scene.shield(over: game)
        func corner() -> ScreenCapture.Pixel? { ShieldColours.corner(of: shield, in: scene) }
        scene.wait("Homework's green: \(String(describing: corner()))", timeout: .seconds(15)) {
            corner().map { $0.distance(to: ShieldColours.homeworkGreen) < 12 } ?? false
        }
        XCTAssertEqual(try scene.covered().map(\.window), ["\(game)"], "the notes app is not discouraged")
        let log = { scene.agent.process.standardError }
        for point in ["device-activity-monitor", "shield-configuration"] {
            XCTAssertTrue(
                log().contains("started org.example.homework's \(point) extension"), String(log().suffix(3000)))
        }

        // "Ask for access": the started action delegate defers; the shield is redrawn as waiting.
        scene.activate(game, expectingShield: shield)
        try runTool("xdotool", ["key", "Tab"], display: scene.session.display)
        try runTool("xdotool", ["key", "Return"], display: scene.session.display)
        scene.wait("redrawn amber: \(String(describing: corner()))", timeout: .seconds(15)) {
            corner().map { $0.distance(to: ShieldColours.homeworkAmber) < 12 } ?? false
        }
        XCTAssertTrue(apps.process.isRunning, "a deferral keeps the game open")

        // Three seconds in Notes: eventDidReachThreshold, and the monitor lifts the shield.
        scene.connection.requestActivation(of: notes)
        scene.wait("Notes focused") { scene.watcher.activeWindow == notes }
        scene.wait("the shield lifted once Notes reached the threshold", timeout: .seconds(20)) {
            scene.watcher.windows[shield]?.isViewable != true
        }
        XCTAssertEqual(try scene.covered(), [])
        XCTAssertTrue(
            log().contains("Homework: encouraged reached its threshold in daily, shield lifted"),
            String(log().suffix(3000)))
        XCTAssertEqual(
            log().components(separatedBy: "Homework: daily started").count - 1, 1, "intervalDidStart came once")

        // Left idle, every extension leaves on its own: nothing of Homework runs.
        let deadline = Date().addingTimeInterval(20)
        // (This test's: the clock runs run this class at several clocks at once.)
        let homeworkPath = homework.resolvingSymlinksInPath().path
        let ours = try XCTUnwrap(environment["SCREENWARD_HOME"].map { "SCREENWARD_HOME=\($0)" })
        while !RunningPrograms.processes(running: homeworkPath, environment: ours).isEmpty, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.2)
        }
        XCTAssertEqual(
            RunningPrograms.processes(running: homeworkPath, environment: ours).map(\.pid), [],
            "Homework's extensions exit when idle")
        XCTAssertTrue(try runProject("homework", ["status"], environment).contains("shield: none"))

        // The person sees which apps hold access, and takes Homework's away.
        let listed = try runProject("screenward", ["app", "list"], environment)
        XCTAssertTrue(listed.contains("org.example.homework  individual, since"), listed)
        XCTAssertTrue(listed.contains("schedules: daily"), listed)
        XCTAssertTrue(
            try runProject("screenward", ["app", "revoke", "org.example.homework"], environment).contains(
                "no longer holds"))
        XCTAssertTrue(
            try runProject("homework", ["status"], environment).contains("authorization: notDetermined"))
        XCTAssertTrue(try runProject("screenward", ["app", "list"], environment).contains("No app holds"))
    }

    /// Worklog (WWDC22): Social and Games are shielded; its evening (placed around now)
    /// lifts the Social shield and leaves Gaming's, through its monitor started by the agent.
    func testWorklogsEveningLiftsSocialButNotGamingWithItsMonitorStartedByTheAgent() throws {
        let scene = try startShieldScene(extraEntries: [
            "chat.desktop":
                "[Desktop Entry]\nType=Application\nName=Chat\nExec=chat\nCategories=Network;InstantMessaging;\n"
        ])
        defer { scene.stop() }
        let apps = try DemoApplications(display: scene.session.display, windows: ["game.Game", "chat.Chat"])
        let (game, chat) = (id(apps.windows[0]), id(apps.windows[1]))
        let environment = scene.agent.environment
        try install("worklog", in: scene)

        try scene.agent.allowAccess("org.example.worklog")
        XCTAssertTrue(try runProject("worklog", ["setup"], environment).contains("authorised"))
        let chatShield = try scene.shield(over: chat)
        _ = try scene.shield(over: game)
        let ours = try XCTUnwrap(environment["SCREENWARD_HOME"].map { "SCREENWARD_HOME=\($0)" })
        XCTAssertTrue(
            RunningPrograms.processes(
                running: try ProjectPrograms.url(of: "worklog").resolvingSymlinksInPath().path, environment: ours
            ).isEmpty, "nothing of Worklog runs")

        let now = Date()
        _ = try runProject(
            "worklog",
            [
                "allow-evenings", "--from", Self.hourAndMinute(now.addingTimeInterval(-3600)), "--until",
                Self.hourAndMinute(now.addingTimeInterval(3600)),
            ],
            environment)
        scene.wait("the chat's shield lifted by the started monitor", timeout: .seconds(20)) {
            scene.watcher.windows[chatShield]?.isViewable != true
        }
        XCTAssertEqual(try scene.covered().map(\.window), ["\(game)"], "the game stays shielded")
        XCTAssertTrue(
            scene.agent.process.standardError.contains(
                "started org.example.worklog's device-activity-monitor extension"))
    }
}
