import Foundation
import ScreenwardTesting
import SessionHarness
import TestSupport
import X11Session
import XCTest

/// A person's own rules, set with `screenward limit|downtime|allow` and enforced by the
/// built-in rules app in the real agent, over real windows.
final class RulesTests: XSessionTestCase {
    /// Daily limits used up within the test: one day's use.
    override func setUpWithError() throws {
        try super.setUpWithError()
        startWithinOneDay(lasting: 60)
    }

    /// The agent's log lines about one application's shield look.
    private func looks(of app: String, in scene: ShieldScene) -> [String] {
        scene.agent.process.standardError.split(separator: "\n").filter { $0.contains("look for \(app)") }.map(
            String.init)
    }

    /// A 3-second daily limit on the game: after 3 s of focus it is shielded by the rules'
    /// shield, which names the limit, what was used and when it resets; the notes app is not.
    func testADailyLimitShieldsItsAppOnceUsedUpAndTheShieldNamesIt() throws {
        let scene = try startShieldScene()
        defer { scene.stop() }
        let apps = try DemoApplications(display: scene.session.display, windows: ["game.Game", "notes.Notes"])
        let (game, notes) = (id(apps.windows[0]), id(apps.windows[1]))
        scene.connection.requestActivation(of: notes)
        scene.wait("notes focused") { scene.watcher.activeWindow == notes }

        let added = try scene.agent.cli(["limit", "add", "Games", "--app", "game.desktop", "--daily", "3s"])
        XCTAssertTrue(added.contains("Added the limit Games: 3 s a day of Game, every day"), added)
        XCTAssertEqual(try scene.covered(), [], "nothing is used up yet")

        let focused = Date()
        scene.connection.requestActivation(of: game)
        let shield = try scene.shield(over: game)
        let elapsed = Date().timeIntervalSince(focused)
        XCTAssertGreaterThanOrEqual(elapsed, 2.9, "not before 3 s of focus")
        XCTAssertLessThan(elapsed, 6, "soon after")
        XCTAssertEqual(try scene.covered().map(\.owner), ["org.screenward.rules"])
        scene.wait("the rules' look", timeout: .seconds(5)) { !looks(of: "game.desktop", in: scene).isEmpty }
        let look = looks(of: "game.desktop", in: scene).last ?? ""
        XCTAssertTrue(look.contains("\"Time's up: Games\""), look)
        XCTAssertTrue(
            look.contains("You used 3 s of your 3 s for Games today. Game is available again tomorrow at 00:00."), look)
        XCTAssertTrue(look.contains("\"15 more minutes\""), look)
        scene.loop.iterate(until: { false }, timeout: .milliseconds(700))
        screenshot("rules-limit-shield.png", of: scene)

        // The notes app is not in the limit.
        scene.connection.requestActivation(of: notes)
        scene.wait("notes focused") { scene.watcher.activeWindow == notes }
        XCTAssertEqual(try scene.covered().map(\.window), ["\(game)"])

        let status = try scene.agent.cli(["status"])
        // The shield takes the focus a moment after the limit ran out: a few hundredths may count.
        XCTAssertTrue(status.contains("Games (limit): 3."), status)
        XCTAssertTrue(status.contains("s used of 3.0s, 0.0s left; shields Game until"), status)
        let listing = try scene.agent.cli(["limit", "list", "--json"])
        XCTAssertTrue(listing.contains("\"daily\" : 3"), listing)

        // Removing the limit lifts the shield at once.
        XCTAssertTrue(try scene.agent.cli(["limit", "remove", "Games"]).contains("Removed the limit Games"))
        scene.wait("the shield lifted", timeout: .seconds(5)) { scene.watcher.windows[shield]?.isViewable != true }
    }

    /// Downtime placed around now shields every application but the always-allowed one.
    func testDowntimeShieldsAllButTheAllowedApplication() throws {
        let scene = try startShieldScene()
        defer { scene.stop() }
        let apps = try DemoApplications(display: scene.session.display, windows: ["game.Game", "notes.Notes"])
        let (game, notes) = (id(apps.windows[0]), id(apps.windows[1]))
        XCTAssertTrue(try scene.agent.cli(["allow", "notes.desktop"]).contains("Always allowed: notes.desktop"))
        let now = Date()
        let added = try scene.agent.cli([
            "downtime", "add", "Bedtime", "--from", Self.hourAndMinute(now.addingTimeInterval(-3600)), "--to",
            Self.hourAndMinute(now.addingTimeInterval(3600)),
        ])
        XCTAssertTrue(added.contains("Added the downtime Bedtime"), added)
        _ = try scene.shield(over: game)
        XCTAssertEqual(try scene.covered().map(\.window), ["\(game)"], "the allowed notes app stays usable")
        scene.wait("the downtime look", timeout: .seconds(5)) { !looks(of: "game.desktop", in: scene).isEmpty }
        XCTAssertTrue(looks(of: "game.desktop", in: scene).last?.contains("\"Downtime: Bedtime\"") == true)
        scene.connection.requestActivation(of: notes)
        scene.wait("the allowed notes focused") { scene.watcher.activeWindow == notes }
        scene.loop.iterate(until: { false }, timeout: .milliseconds(700))
        screenshot("rules-downtime-shield.png", of: scene)

        // Unknown ids and malformed times are refused with the reason.
        XCTAssertThrowsError(try scene.agent.cli(["allow", "nosuch.desktop"])) { error in
            XCTAssertTrue("\(error)".contains("no application \"nosuch.desktop\" is installed"), "\(error)")
        }
        XCTAssertThrowsError(try scene.agent.cli(["downtime", "add", "Late", "--from", "25:00", "--to", "07:00"])) {
            error in
            XCTAssertTrue("\(error)".contains("is not a time of day"), "\(error)")
        }
        XCTAssertThrowsError(try scene.agent.cli(["downtime", "add", "bedtime", "--from", "21:00", "--to", "07:00"])) {
            error in
            XCTAssertTrue("\(error)".contains("there is already a rule named bedtime"), "\(error)")
        }
    }

    /// A locked rule: tightening it takes effect at once; relaxing or removing it only
    /// after its delay, while its shield stays.
    func testALockedRuleCannotBeRelaxedBeforeItsDelay() throws {
        let scene = try startShieldScene()
        defer { scene.stop() }
        let apps = try DemoApplications(display: scene.session.display, windows: ["game.Game"])
        let game = id(apps.windows[0])
        scene.connection.requestActivation(of: game)
        scene.wait("game focused") { scene.watcher.activeWindow == game }
        _ = try scene.agent.cli([
            "limit", "add", "Games", "--app", "game.desktop", "--daily", "1h", "--locked-for", "6s",
        ])

        // Tighter: at once (1 s is already used up after a moment in the game).
        XCTAssertTrue(
            try scene.agent.cli([
                "limit", "change", "Games", "--app", "game.desktop", "--daily", "1s", "--locked-for", "6s",
            ]).contains("Changed"))
        let shield = try scene.shield(over: game)

        // Looser, and removal: both wait for the delay, and the shield stays meanwhile.
        let asked = Date()
        let relaxed = try scene.agent.cli([
            "limit", "change", "Games", "--app", "game.desktop", "--daily", "1h", "--locked-for", "6s",
        ])
        XCTAssertTrue(relaxed.contains("is locked for 6 s: the change relaxes it, so it takes effect at"), relaxed)
        XCTAssertTrue(try scene.agent.cli(["allow", "game.desktop"]).contains("will be always allowed from"))
        XCTAssertTrue(try scene.agent.cli(["limit", "list"]).contains("(relaxed at"))
        scene.loop.iterate(until: { false }, timeout: .seconds(3))
        XCTAssertEqual(try scene.covered().map(\.window), ["\(game)"], "still shielded before the delay")
        scene.wait("the relaxation after its delay", timeout: .seconds(15)) {
            scene.watcher.windows[shield]?.isViewable != true
        }
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(asked), 5.5)
        XCTAssertTrue(
            try scene.agent.cli(["limit", "list"]).contains("Games: 1 h a day of Game, every day, locked for 6 s"))
    }

    /// "15 more minutes" on one's own used-up limit, pressed on the shield with real
    /// keys: the shield lifts, once; the next day's count starts over.
    func testFifteenMoreMinutesOnOnesOwnLimitLiftsTheShieldOnce() throws {
        let scene = try startShieldScene()
        defer { scene.stop() }
        let apps = try DemoApplications(display: scene.session.display, windows: ["game.Game"])
        let game = id(apps.windows[0])
        scene.connection.requestActivation(of: game)
        _ = try scene.agent.cli(["limit", "add", "Games", "--app", "game.desktop", "--daily", "1s"])
        let shield = try scene.shield(over: game)
        scene.wait("the rules' look", timeout: .seconds(5)) {
            looks(of: "game.desktop", in: scene).last?.contains("15 more minutes") == true
        }
        scene.activate(game, expectingShield: shield)
        try runTool("xdotool", ["key", "Tab"], display: scene.session.display)
        try runTool("xdotool", ["key", "Return"], display: scene.session.display)
        scene.wait("the shield lifted for 15 minutes", timeout: .seconds(10)) {
            scene.watcher.windows[shield]?.isViewable != true
        }
        let status = try scene.agent.cli(["status"])
        XCTAssertTrue(status.contains("with 15m 00s extra"), status)
        XCTAssertThrowsError(try scene.agent.cli(["limit", "more", "Games"])) { error in
            XCTAssertTrue(
                "\(error)".contains("Games allows 15 more minutes once a day, and it was taken"), "\(error)")
        }
    }

    /// Warnings before a limit runs out reach a real notification server (dunst) on a
    /// private session bus, each once, in order, before the shield (leads scaled down to
    /// 4 s and 2 s); with no server running, the agent says so in its log.
    func testWarningsReachTheNotificationServerBeforeTheLimitRunsOut() throws {
        let dunstProgram = try requireTool("dunst")
        let bus = try PrivateDBus()
        let scene = try startShieldScene(
            extraEnvironment: ["DBUS_SESSION_BUS_ADDRESS": bus.address], agentArguments: ["--rule-warnings", "4,2"])
        defer { scene.stop() }
        let dunst = try ChildProcess(
            dunstProgram, ["-print"],
            environment: ["DISPLAY": scene.session.display, "DBUS_SESSION_BUS_ADDRESS": bus.address])
        defer { dunst.stop() }
        let apps = try DemoApplications(display: scene.session.display, windows: ["game.Game", "notes.Notes"])
        let (game, notes) = (id(apps.windows[0]), id(apps.windows[1]))
        scene.connection.requestActivation(of: notes)
        scene.wait("notes focused") { scene.watcher.activeWindow == notes }
        // dunst takes the name once it runs.
        scene.wait("dunst on the bus") {
            (try? toolOutput(
                "dbus-send",
                [
                    "--bus=\(bus.address)", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                    "org.freedesktop.DBus.NameHasOwner", "string:org.freedesktop.Notifications",
                ], display: scene.session.display))?.contains("true") == true
        }

        _ = try scene.agent.cli(["limit", "add", "Games", "--app", "game.desktop", "--daily", "7s"])
        let focused = Date()
        scene.connection.requestActivation(of: game)
        func summaries() -> [String] { dunst.outputLines.filter { $0.contains("summary:") } }
        scene.wait("the first warning", timeout: .seconds(10)) { summaries().count >= 1 }
        let first = Date().timeIntervalSince(focused)
        scene.wait("the second warning", timeout: .seconds(10)) { summaries().count >= 2 }
        let second = Date().timeIntervalSince(focused)
        _ = try scene.shield(over: game)
        XCTAssertEqual(summaries(), ["\tsummary: '4 s left: Games'", "\tsummary: '2 s left: Games'"])
        XCTAssertTrue(
            dunst.outputLines.contains("\tbody: 'Your daily limit for Games runs out in 4 s.'"), "\(dunst.outputLines)")
        XCTAssertGreaterThanOrEqual(first, 2.8, "not before 3 s of the 7")
        XCTAssertGreaterThanOrEqual(second, 4.8, "not before 5 s of the 7")
        XCTAssertLessThan(second, 7, "before the limit ran out")
        screenshot("rules-warning.png", of: scene)

        // No notification server: the warning is in the agent's log, and why it was not shown.
        dunst.stop()
        _ = try scene.agent.cli(["limit", "add", "Notes", "--app", "notes.desktop", "--daily", "3s"])
        scene.connection.requestActivation(of: notes)
        scene.wait("the log line", timeout: .seconds(10)) {
            scene.agent.process.standardError.contains(
                "rules: the warning \"2 s left: Notes\" was not shown: no notification server runs")
        }
        XCTAssertEqual(summaries().count, 2, "nothing more was shown")
    }

    /// The rules are the owner's: a new agent on the same home keeps them, their used-up
    /// limit's shield and their waiting relaxation, with nothing asked again.
    func testRulesSurviveARestartOfTheAgent() throws {
        let session = try startXSession()
        let environment = try catalogEnvironment(entries: [
            "game.desktop": "[Desktop Entry]\nType=Application\nName=Game\nExec=game\nCategories=Game;\n"
        ])
        let apps = try DemoApplications(display: session.display, windows: ["game.Game"])
        let driver = try FocusDriver(display: session.display)
        try driver.activate(apps.windows[0])
        var agent = try AgentRun(display: session.display, home: home, environment: environment)
        _ = try agent.cli(["limit", "add", "Games", "--app", "game.desktop", "--daily", "1s", "--locked-for", "1h"])
        _ = try agent.cli(["limit", "remove", "Games"])
        func covered() throws -> Bool {
            try agent.cli(["shields", "--json"]).contains("\"owner\" : \"org.screenward.rules\"")
        }
        var deadline = Date().addingTimeInterval(15)
        while try !covered(), Date() < deadline { Thread.sleep(forTimeInterval: 0.2) }
        XCTAssertTrue(try covered(), "the used-up limit's shield")
        XCTAssertEqual(agent.stop(), 0)

        agent = try AgentRun(display: session.display, home: home, environment: environment)
        defer { agent.stop() }
        let listed = try agent.cli(["limit", "list"])
        XCTAssertTrue(listed.contains("Games: 1 s a day of Game, every day, locked for 1 h (removed at"), listed)
        deadline = Date().addingTimeInterval(15)
        while try !covered(), Date() < deadline { Thread.sleep(forTimeInterval: 0.2) }
        XCTAssertTrue(try covered(), "the shield is back with the new agent")
        XCTAssertTrue(try agent.cli(["status"]).contains("Games (limit): "))
    }
}
