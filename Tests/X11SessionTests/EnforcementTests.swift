@_spi(Screenward) import DeviceActivity
@_spi(Screenward) import FamilyControls
import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardIPC
import ScreenwardTesting
import SessionHarness
import Synchronization
import X11Session
import XCTest

/// What the API accepts is enforced on screen by the real agent, with real windows
/// and real focus: blocked applications, category shields, time in front of a shield,
/// usage thresholds.
final class EnforcementTests: XSessionTestCase {
    /// The test process acts as an app on the Screen Time API (as the benchmark does),
    /// talking to the agent over its socket.
    private func authorise(_ bundle: String, on scene: ShieldScene) throws -> ServiceClient {
        let client = ServiceClient(
            transport: SocketTransport(path: scene.agent.home.appendingPathComponent("agent.sock").path),
            bundleIdentifier: bundle)
        ScreenwardApp.client = client
        try scene.agent.allowAccess(bundle)
        _ = try client.call(AuthorizationMethods.request, .individual)
        return client
    }

    // MARK: Blocked applications

    func testABlockedApplicationIsClosedAsItAppearsAndLeavesTheMenusWhileBlocked() throws {
        let scene = try startShieldScene()
        defer { scene.stop() }
        let display = scene.session.display
        let running = try DemoApplications(display: display, windows: ["game.Game"])
        scene.wait("the game managed") { scene.watcher.windows[id(running.windows[0])] != nil }
        let menuFile = temporary.appendingPathComponent("data/applications/game.desktop")
        let ownEntry = try String(contentsOf: menuFile, encoding: .utf8)

        _ = try authorise("org.example.focus", on: scene)
        let store = ManagedSettingsStore(named: .init("focus"))
        store.application.blockedApplications = [Application(bundleIdentifier: "game.desktop")]

        // The game already running is closed, gentlest first.
        XCTAssertNotNil(
            running.process.waitForExit(timeout: 15),
            "the running game was not closed: \(scene.agent.process.standardError.suffix(2000))")
        scene.wait("the agent says it closed the game") {
            scene.agent.process.standardError.contains(
                "blocked: closed \(running.windows[0]) of game.desktop (_NET_CLOSE_WINDOW)")
        }
        // Its menu entry is hidden by a copy; the person's own entry waits aside.
        let hidden = try String(contentsOf: menuFile, encoding: .utf8)
        XCTAssertTrue(hidden.contains("NoDisplay=true") && hidden.contains("X-Screenward-Blocked=true"), hidden)

        // A game started while blocked is closed as it appears.
        let started = try DemoApplications(display: display, windows: ["game.Game"])
        XCTAssertNotNil(started.process.waitForExit(timeout: 15), "a game started while blocked was not closed")
        XCTAssertTrue(try scene.covered().isEmpty, "a blocked application is closed, not shielded")

        // A process that keeps opening blocked windows is ended without asking.
        let persistent = try DemoApplications(
            display: display, windows: ["game.Game", "game.Game:Again"], extraArguments: ["--ignore-delete"])
        XCTAssertNotNil(
            persistent.process.waitForExit(timeout: 15), "the game that keeps opening windows was not ended")
        scene.wait("the agent says why") { scene.agent.process.standardError.contains("game.desktop (process") }
        XCTAssertTrue(
            scene.agent.process.standardError.contains("keeps opening windows; ending the process"),
            scene.agent.process.standardError.suffix(2000).description)

        // Unblocked: the person's entry is back as it was, and the game runs.
        store.application.blockedApplications = nil
        scene.wait("the menu entry restored") { (try? String(contentsOf: menuFile, encoding: .utf8)) == ownEntry }
        let allowed = try DemoApplications(display: display, windows: ["game.Game"])
        let window = id(allowed.windows[0])
        scene.wait("the game managed") { scene.watcher.windows[window] != nil }
        scene.connection.requestActivation(of: window)
        scene.wait("the game has the focus") { scene.watcher.activeWindow == window }
        scene.loop.iterate(until: { false }, timeout: .milliseconds(500))
        XCTAssertTrue(allowed.process.isRunning, "an unblocked game is left alone")
    }

    // MARK: Category shields

    /// Worklog (WWDC22) shields the Social and Games categories; every application of
    /// either is covered, on screen, by the store responsible, and nothing else is.
    func testACategoryShieldCoversEveryApplicationOfTheCategoryOnScreen() throws {
        let scene = try startShieldScene(extraEntries: [
            "chat.desktop":
                "[Desktop Entry]\nType=Application\nName=Chat\nExec=chat\nCategories=Network;InstantMessaging;\n",
            "racer.desktop": "[Desktop Entry]\nType=Application\nName=Racer\nExec=racer\nCategories=Game;ArcadeGame;\n",
        ])
        defer { scene.stop() }
        let apps = try DemoApplications(
            display: scene.session.display, windows: ["notes.Notes", "game.Game", "chat.Chat", "racer.Racer"])
        let windows = apps.windows.map(id)
        scene.wait("all managed") { windows.allSatisfy { scene.watcher.windows[$0] != nil } }
        var environment = scene.agent.environment
        environment["WORKLOG_HOME"] = temporary.appendingPathComponent("worklog").path
        try scene.agent.allowAccess("org.example.worklog")
        let setup = try ChildProcess(try ProjectPrograms.url(of: "worklog"), ["setup"], environment: environment)
        setup.closeInput()
        XCTAssertEqual(setup.waitForExit(timeout: 30), 0, setup.standardError)

        let shields = try windows.dropFirst().map { try scene.shield(over: $0) }
        let covered = Dictionary(
            uniqueKeysWithValues: try scene.covered().map { ($0.application, "\($0.owner)/\($0.store)") })
        XCTAssertEqual(
            covered,
            [
                "game.desktop": "org.example.worklog/gaming", "racer.desktop": "org.example.worklog/gaming",
                "chat.desktop": "org.example.worklog/social",
            ])
        for (window, shield) in zip(windows.dropFirst(), shields) {
            scene.wait("the shield over \(window)") {
                scene.watcher.windows[shield]?.frame == scene.watcher.windows[window]?.frame
            }
            scene.activate(window, expectingShield: shield)
        }
        XCTAssertEqual(scene.watcher.windows[shields[0]]?.facts.title, "Game (restricted)")
        // Notes (Productivity) is no category Worklog shields: it keeps the focus.
        scene.connection.requestActivation(of: windows[0])
        scene.wait("notes keeps the focus") { scene.watcher.activeWindow == windows[0] }
        scene.loop.iterate(until: { false }, timeout: .milliseconds(300))
        XCTAssertEqual(scene.watcher.activeWindow, windows[0])
    }

    // MARK: Time in front of a shield

    func testTimeInFrontOfAShieldCountsForNoApplication() throws {
        let scene = try startShieldScene()
        defer { scene.stop() }
        let apps = try DemoApplications(display: scene.session.display, windows: ["notes.Notes", "game.Game"])
        let (notes, game) = (id(apps.windows[0]), id(apps.windows[1]))
        scene.wait("both managed") { scene.watcher.windows[notes] != nil && scene.watcher.windows[game] != nil }
        _ = try scene.agent.cli(["shield", "add", "--app", "game.desktop"])
        let shield = try scene.shield(over: game)
        scene.connection.requestActivation(of: notes)
        scene.wait("notes active") { scene.watcher.activeWindow == notes }
        let before = try scene.agent.usage()

        // Three seconds in front of the game's shield, then one with notes.
        scene.activate(game, expectingShield: shield)
        scene.loop.iterate(until: { false }, timeout: .seconds(3))
        XCTAssertEqual(scene.watcher.activeWindow, shield)
        scene.connection.requestActivation(of: notes)
        scene.wait("notes active") { scene.watcher.activeWindow == notes }
        scene.loop.iterate(until: { false }, timeout: .seconds(1))
        let after = try scene.agent.usage()

        let gameTime = after.seconds(of: "game.desktop") - before.seconds(of: "game.desktop")
        let notesTime = after.seconds(of: "notes.desktop") - before.seconds(of: "notes.desktop")
        let total = after.totalSeconds - before.totalSeconds
        // The game held the focus for the few milliseconds before its shield took it.
        XCTAssertLessThan(gameTime, 0.1, "time in front of the shield was counted for the game")
        XCTAssertEqual(
            total, notesTime + gameTime, accuracy: 0.02,
            "time in front of the shield was counted for something: \(after.apps)")
        XCTAssertGreaterThan(notesTime, 0.9)
        XCTAssertFalse(
            after.apps.contains { $0.id.contains("Screenward") || $0.id.contains("shield") }, "\(after.apps)")
    }

    // MARK: Thresholds

    /// An event of 2 s on the game: reached by real focus through the real agent, once,
    /// not before the game had its two seconds.
    func testAThresholdIsReachedByRealFocusOnceAndNotBefore() throws {
        let scene = try startShieldScene()
        defer { scene.stop() }
        let apps = try DemoApplications(display: scene.session.display, windows: ["notes.Notes", "game.Game"])
        let (notes, game) = (id(apps.windows[0]), id(apps.windows[1]))
        scene.wait("both managed") { scene.watcher.windows[notes] != nil && scene.watcher.windows[game] != nil }
        scene.connection.requestActivation(of: notes)
        scene.wait("notes active") { scene.watcher.activeWindow == notes }

        let client = try authorise("org.example.limits", on: scene)
        let selection = try client.call(
            AuthorizationMethods.issueSelection, SelectionRequest(applications: ["game.desktop"]))
        let reached = Reached()
        let attachment = try MonitorAttachment.attach(ThresholdMonitor(reached: reached), client: client)
        defer { _ = attachment }
        let now = Date()
        let calendar = Calendar.current
        try DeviceActivityCenter().startMonitoring(
            "play",
            during: DeviceActivitySchedule(
                intervalStart: calendar.dateComponents([.hour, .minute], from: now.addingTimeInterval(-3600)),
                intervalEnd: calendar.dateComponents([.hour, .minute], from: now.addingTimeInterval(3 * 3600)),
                repeats: false),
            events: [
                "two-seconds": DeviceActivityEvent(
                    applications: selection.applicationTokens, threshold: DateComponents(second: 2))
            ])

        // 1.2 s of the game, then notes: not reached.
        scene.connection.requestActivation(of: game)
        scene.wait("game active") { scene.watcher.activeWindow == game }
        scene.loop.iterate(until: { false }, timeout: .milliseconds(1200))
        scene.connection.requestActivation(of: notes)
        scene.wait("notes active") { scene.watcher.activeWindow == notes }
        scene.loop.iterate(until: { false }, timeout: .milliseconds(1500))
        XCTAssertEqual(reached.events, [], "reached after 1.2 s of a 2 s threshold (notes' time must not count)")
        // The game's first stint as the agent counted it: a little over the 1.2 s the test
        // waited (the switch to notes takes a moment), so what is left is measured, not assumed.
        let firstStint = try scene.agent.usage().seconds(of: "game.desktop")
        XCTAssertGreaterThan(firstStint, 1.1)
        XCTAssertLessThan(firstStint, 1.9)
        let left = 2 - firstStint

        // The rest of the two seconds reaches it, within moments: not before that rest
        // has passed since the activation was asked for, not long after the test saw it happen.
        let askedAgain = Date()
        scene.connection.requestActivation(of: game)
        scene.wait("game active") { scene.watcher.activeWindow == game }
        let focusedAgain = Date()
        // The callback arrives on the socket's threads: look every few milliseconds.
        let deadline = Date().addingTimeInterval(5)
        while reached.events.isEmpty, Date() < deadline {
            scene.loop.iterate(until: { false }, timeout: .milliseconds(5))
        }
        XCTAssertEqual(reached.events, ["play/two-seconds"])
        XCTAssertGreaterThan(
            Date().timeIntervalSince(askedAgain), left - 0.02,
            "reached before the game had its two seconds (\(left) s were left)")
        XCTAssertLessThan(Date().timeIntervalSince(focusedAgain), left + 0.7, "reached late (\(left) s were left)")

        // Once: more focus brings nothing more.
        scene.loop.iterate(until: { false }, timeout: .seconds(1))
        XCTAssertEqual(reached.events, ["play/two-seconds"])
    }
}

/// The events a monitor heard, in order.
private final class Reached: Sendable {
    private let list = Mutex<[String]>([])
    func record(_ event: String) { list.withLock { $0.append(event) } }
    var events: [String] { list.withLock { $0 } }
}

private final class ThresholdMonitor: DeviceActivityMonitor {
    var reached: Reached?

    convenience init(reached: Reached) {
        self.init()
        self.reached = reached
    }

    required init() {}

    override func eventDidReachThreshold(_ event: DeviceActivityEvent.Name, activity: DeviceActivityName) {
        reached?.record("\(activity.rawValue)/\(event.rawValue)")
    }
}
