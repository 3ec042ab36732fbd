import Foundation
import ScreenwardCore
import ScreenwardTesting
import SessionHarness
import X11Session
import XCTest

/// The agent covers shielded applications, against real windows, openbox, GTK and
/// processes: `screenward shield add|remove` sets the shield, the test watches the
/// screen through its own X connection.
final class ShieldPresenterTests: XSessionTestCase {
    func testAShieldedWindowIsCoveredFollowedAndTakesTheFocusBack() throws {
        let scene = try startShieldScene()
        defer { scene.stop() }
        let apps = try DemoApplications(display: scene.session.display, windows: ["notes.Notes", "game.Game"])
        let (notes, game) = (id(apps.windows[0]), id(apps.windows[1]))
        scene.wait("both windows managed") { scene.watcher.windows[notes] != nil && scene.watcher.windows[game] != nil }

        _ = try scene.agent.cli(["shield", "add", "--app", "game.desktop"])
        let shield = try scene.shield(over: game)
        scene.wait("the shield over the game, focused") {
            scene.watcher.windows[shield]?.frame == scene.watcher.windows[game]?.frame
                && scene.watcher.activeWindow == shield
        }
        let shieldWindow = try XCTUnwrap(scene.watcher.windows[shield])
        XCTAssertEqual(shieldWindow.facts.wmInstance, "shield")
        XCTAssertEqual(shieldWindow.facts.wmClass, "Screenward")
        XCTAssertEqual(shieldWindow.facts.title, "Game (restricted)")
        XCTAssertEqual(shieldWindow.desktop, scene.watcher.windows[game]?.desktop)
        XCTAssertEqual(try scene.covered().map(\.application), ["game.desktop"])

        // Another window takes the focus; activating the game brings the shield back.
        scene.connection.requestActivation(of: notes)
        scene.wait("notes active") { scene.watcher.activeWindow == notes }
        scene.activate(game, expectingShield: shield)

        // The shield follows the game when it moves and is resized.
        try runTool("xdotool", ["windowmove", "\(game.rawValue)", "300", "200"], display: scene.session.display)
        try runTool("xdotool", ["windowsize", "\(game.rawValue)", "500", "360"], display: scene.session.display)
        scene.wait(
            """
            the shield follows the game: \(String(describing: scene.watcher.windows[shield]?.frame)) vs \
            \(String(describing: scene.watcher.windows[game]?.frame))
            """
        ) {
            guard let target = scene.watcher.windows[game]?.frame, let cover = scene.watcher.windows[shield]?.frame
            else { return false }
            return cover == target && target.width >= 500
        }

        // Shield removed: the shield goes, the game can be used again.
        _ = try scene.agent.cli(["shield", "remove", "--app", "game.desktop"])
        scene.wait("the shield unmapped") { scene.watcher.windows[shield]?.isViewable != true }
        XCTAssertEqual(try scene.covered(), [])
        scene.connection.requestActivation(of: game)
        scene.wait("the game keeps the focus") { scene.watcher.activeWindow == game }
        scene.loop.iterate(until: { false }, timeout: .milliseconds(300))
        XCTAssertEqual(scene.watcher.activeWindow, game)
    }

    func testTheShieldStaysOverAFullScreenWindowAndGoesWithItToAnotherDesktop() throws {
        let scene = try startShieldScene()
        defer { scene.stop() }
        let apps = try DemoApplications(display: scene.session.display, windows: ["game.Game"])
        let game = id(apps.windows[0])
        scene.wait("the game managed") { scene.watcher.windows[game] != nil }
        _ = try scene.agent.cli(["shield", "add", "--app", "game.desktop"])
        let shield = try scene.shield(over: game)
        let display = scene.session.display

        // Full screen: the shield takes the whole screen too, above the game.
        try runTool("wmctrl", ["-i", "-r", "\(game.rawValue)", "-b", "add,fullscreen"], display: display)
        scene.wait("the shield full screen over the game") {
            scene.watcher.windows[game]?.isFullscreen == true
                && scene.watcher.windows[shield]?.frame == scene.watcher.windows[game]?.frame
                && scene.watcher.windows[shield]?.frame.width == 1280
        }
        scene.activate(game, expectingShield: shield, "the shield focused over the full-screen game")
        var stacking = ""
        scene.wait("the shield above the full-screen game: \(stacking)") {
            stacking = (try? toolOutput("xprop", ["-root", "_NET_CLIENT_LIST_STACKING"], display: display)) ?? ""
            let order =
                stacking.components(separatedBy: "#").last?.split(separator: ",")
                .compactMap { UInt($0.trimmingCharacters(in: .whitespaces).dropFirst(2), radix: 16) } ?? []
            guard let above = order.firstIndex(of: shield.rawValue), let below = order.firstIndex(of: game.rawValue)
            else { return false }
            return above > below
        }
        try runTool("wmctrl", ["-i", "-r", "\(game.rawValue)", "-b", "remove,fullscreen"], display: display)

        // Another desktop: the shield leaves with the game and is there when the person goes there.
        try runTool("xdotool", ["set_num_desktops", "2"], display: display)
        try runTool("xdotool", ["set_desktop_for_window", "\(game.rawValue)", "1"], display: display)
        scene.wait("the shield gone from this desktop") { scene.watcher.windows[shield]?.isViewable != true }
        try runTool("xdotool", ["set_desktop", "1"], display: display)
        scene.wait("the shield over the game on desktop 1") {
            guard let cover = scene.watcher.windows[shield], let target = scene.watcher.windows[game] else {
                return false
            }
            return cover.isViewable && cover.desktop == 1 && cover.frame == target.frame
        }
    }

    /// The default shield's button ("OK") closes the application, gentlest first.
    func testTheDefaultButtonClosesTheApplicationThroughEachStep() throws {
        let scene = try startShieldScene()
        defer { scene.stop() }
        // How each game really ended, from its exit status: the step that worked.
        let cases: [(arguments: [String], ending: ChildProcess.Termination)] = [
            ([], .exited(0)), (["--ignore-delete"], .signalled(SIGTERM)),
            (["--ignore-delete", "--ignore-sigterm"], .signalled(SIGKILL)),
        ]
        _ = try scene.agent.cli(["shield", "add", "--app", "game.desktop"])
        for (arguments, ending) in cases {
            let apps = try DemoApplications(
                display: scene.session.display, windows: ["game.Game"], extraArguments: arguments)
            let game = id(apps.windows[0])
            let shield = try scene.shield(over: game)
            scene.activate(game, expectingShield: shield)
            try runTool("xdotool", ["key", "Return"], display: scene.session.display)
            XCTAssertEqual(
                apps.process.waitForTermination(timeout: 15), ending,
                "\(arguments): the game was not closed as expected")
            if ending == .exited(0) {
                // Closed by its own hand, as asked (`_NET_CLOSE_WINDOW` → `WM_DELETE_WINDOW` from openbox).
                XCTAssertTrue(apps.process.outputLines.contains("closed \(game)"), "\(apps.process.outputLines)")
            }
            scene.wait("the shield gone with the game") { scene.watcher.windows[shield]?.isViewable != true }
        }
    }

    /// What a shield cannot cover reliably is closed: a window that bypasses the window
    /// manager (override-redirect), and an application that keeps the keyboard grabbed.
    func testUncoverableApplicationsAreClosed() throws {
        let scene = try startShieldScene()
        defer { scene.stop() }
        _ = try scene.agent.cli(["shield", "add", "--app", "game.desktop"])
        let popup = try DemoApplications(
            display: scene.session.display, windows: ["game.Game"], extraArguments: ["--override-redirect"])
        XCTAssertNotNil(popup.process.waitForExit(timeout: 15), "the override-redirect game was not closed")
        scene.wait("the agent says why") {
            scene.agent.process.standardError.contains("game.desktop mapped a window that bypasses the window manager")
        }

        let grabbing = try DemoApplications(
            display: scene.session.display, windows: ["game.Game"], extraArguments: ["--grab-keyboard"])
        _ = try grabbing.process.waitForOutputLines(2, timeout: 15)  // "grabbed keyboard"
        scene.connection.requestActivation(of: id(grabbing.windows[0]))
        XCTAssertNotNil(
            grabbing.process.waitForExit(timeout: 15),
            """
            the grabbing game was not closed: \(grabbing.process.outputLines) \
            \(scene.agent.process.standardError.suffix(3000))
            """
        )
        scene.wait("the agent says why") {
            scene.agent.process.standardError.contains("the keyboard stays grabbed while game.desktop is shielded")
        }
    }

    /// Homework's look, and its look while a guardian is asked.
    /// Homework's custom shields (WWDC21): its data source restyles the shield, its
    /// "Ask for access" defers, and the shield is redrawn with the data source's new answer.
    func testAskForAccessDefersAndTheShieldIsRedrawnAsWaiting() throws {
        let scene = try startShieldScene()
        defer { scene.stop() }
        let apps = try DemoApplications(display: scene.session.display, windows: ["game.Game"])
        let game = id(apps.windows[0])
        let environment = scene.agent.environment
        let homework = try ProjectPrograms.url(of: "homework")
        try scene.agent.allowAccess("org.example.homework")
        let setup = try ChildProcess(homework, ["shield", "--app", "game.desktop"], environment: environment)
        setup.closeInput()
        XCTAssertEqual(setup.waitForExit(timeout: 30), 0, setup.standardError)
        let shield = try scene.shield(over: game)

        // The extensions start after the shield went up: it takes their look.
        let configuration = try ChildProcess(homework, ["configuration"], environment: environment)
        let actions = try ChildProcess(homework, ["actions"], environment: environment)
        defer {
            configuration.stop()
            actions.stop()
        }
        let (green, amber) = (ShieldColours.homeworkGreen, ShieldColours.homeworkAmber)
        func corner() -> ScreenCapture.Pixel? { ShieldColours.corner(of: shield, in: scene) }
        scene.wait("Homework's green: \(String(describing: corner()))", timeout: .seconds(15)) {
            corner().map { $0.distance(to: green) < 12 } ?? false
        }

        // "Ask for access" (Tab from the primary button, then Enter): .defer, and the
        // data source's new answer ("Waiting for a guardian…") is drawn.
        scene.activate(game, expectingShield: shield)
        try runTool("xdotool", ["key", "Tab"], display: scene.session.display)
        try runTool("xdotool", ["key", "Return"], display: scene.session.display)
        scene.wait("redrawn amber after the deferral: \(String(describing: corner()))") {
            corner().map { $0.distance(to: amber) < 12 } ?? false
        }
        let log = scene.agent.process.standardError
        XCTAssertTrue(
            log.contains("shield: secondaryButtonPressed on the shield of game.desktop"), log.suffix(1500).description)
        XCTAssertTrue(log.contains("shield: defer for game.desktop"), log.suffix(1500).description)
        XCTAssertTrue(apps.process.isRunning, "a deferral keeps the application")
        XCTAssertEqual(try scene.covered().map(\.window), ["\(game)"])

        // Homework lifts its shield: the game is usable again.
        let stop = try ChildProcess(homework, ["stop"], environment: environment)
        stop.closeInput()
        XCTAssertEqual(stop.waitForExit(timeout: 30), 0, stop.standardError)
        scene.wait("the shield gone") { scene.watcher.windows[shield]?.isViewable != true }
        XCTAssertEqual(try scene.covered(), [])
    }

    /// The same with nothing of Homework running: its two extensions are installed, and the
    /// agent starts each when it needs it (read after SIGHUP, as after an install).
    func testHomeworksInstalledExtensionsAreStartedForItsShieldAndItsButton() throws {
        // The extensions' clean environment keeps HOME: Homework's requests file is under it.
        let scene = try startShieldScene(extraEnvironment: ["HOME": temporary.path])
        defer { scene.stop() }
        let apps = try DemoApplications(display: scene.session.display, windows: ["game.Game"])
        let game = id(apps.windows[0])
        let environment = scene.agent.environment
        let homework = try ProjectPrograms.url(of: "homework")
        try scene.agent.allowAccess("org.example.homework")

        // Installed while the agent runs: it reads the manifests again on SIGHUP.
        let program = homework.resolvingSymlinksInPath().path
        let manifests = temporary.appendingPathComponent("data/screenward/apps", isDirectory: true)
        try FileManager.default.createDirectory(at: manifests, withIntermediateDirectories: true)
        try Data(
            #"""
            {"format": 1, "bundleIdentifier": "org.example.homework", "displayName": "Homework", "extensions": \#
            [{"point": "shield-configuration", "executable": "\#(program)", "arguments": ["configuration"]}, \#
            {"point": "shield-action", "executable": "\#(program)", "arguments": ["actions"]}]}
            """#
            .utf8
        ).write(to: manifests.appendingPathComponent("org.example.homework.json"))
        scene.agent.process.signal(SIGHUP)
        scene.wait("the manifest read") { scene.agent.process.standardError.contains("1 with extensions") }

        // The shield goes up: the data source is started for it, and redraws it when it attaches.
        let setup = try ChildProcess(homework, ["shield", "--app", "game.desktop"], environment: environment)
        setup.closeInput()
        XCTAssertEqual(setup.waitForExit(timeout: 30), 0, setup.standardError)
        let shield = try scene.shield(over: game)

        let (green, amber) = (ShieldColours.homeworkGreen, ShieldColours.homeworkAmber)
        func corner() -> ScreenCapture.Pixel? { ShieldColours.corner(of: shield, in: scene) }
        scene.wait(
            "Homework's green from the started data source: \(String(describing: corner()))", timeout: .seconds(15)
        ) {
            corner().map { $0.distance(to: green) < 12 } ?? false
        }
        // "Ask for access": the press starts the action delegate and waits for it.
        scene.activate(game, expectingShield: shield)
        try runTool("xdotool", ["key", "Tab"], display: scene.session.display)
        try runTool("xdotool", ["key", "Return"], display: scene.session.display)
        scene.wait(
            "redrawn amber after the started delegate deferred: \(String(describing: corner()))", timeout: .seconds(15)
        ) {
            corner().map { $0.distance(to: amber) < 12 } ?? false
        }
        let log = scene.agent.process.standardError
        XCTAssertTrue(
            log.contains("started org.example.homework's shield-configuration extension"), log.suffix(3000).description)
        XCTAssertTrue(
            log.contains("started org.example.homework's shield-action extension"), log.suffix(3000).description)
        XCTAssertTrue(apps.process.isRunning, "a deferral keeps the application")
    }
}
