import Foundation
import ScreenwardTesting
import SessionDisplay
import SessionHarness
import TestSupport
import X11Session
import XCTest

/// The agent against the hard cases of a real session: hostile and vanishing
/// windows, no window manager, idleness, a dying X server, a killed agent.
final class SessionEventsIntegrationTests: XSessionTestCase {
    func testHostileAndVanishingWindowsNeverStopTheAgent() throws {
        let session = try startXSession()
        let apps = try DemoApplications(display: session.display, windows: ["sentinel.Sentinel", "calm.Calm"])
        let driver = try FocusDriver(display: session.display)
        try driver.activate(apps.windows[0])
        let agent = try AgentRun(
            display: session.display, home: home, environment: try catalogEnvironment(entries: [:]))

        // Windows owned by this test's connection, with properties no sane client sets.
        let own = DemoWindows(connection: driver.connection)
        let hostile = own.create(.init(instance: "h", className: "Hostile", title: "x"))
        own.setRawProperty(
            hostile, "WM_CLASS", type: "STRING", bytes: [0xff, 0xfe, 0x00, 0xc3, 0x28, 0x1b, 0x5b, 0x32, 0x4a, 0x00])
        own.setRawProperty(hostile, "_NET_WM_NAME", type: "UTF8_STRING", bytes: Array(repeating: 0xe2, count: 200_000))
        own.setRawProperty(hostile, "_GTK_APPLICATION_ID", type: "CARDINAL", bytes: [1, 2, 3, 4])
        own.setRawProperty(hostile, "WM_TRANSIENT_FOR", type: "WINDOW", bytes: [0, 0, 0, 0])
        try driver.activate(hostile.description)
        Thread.sleep(forTimeInterval: 0.3)

        // Windows that vanish between the event and the agent's reads of them.
        for index in 0..<150 {
            let window = own.create(.init(instance: "gone\(index)", className: "Vanishing", title: "\(index)"))
            driver.connection.requestActivation(of: window)
            if index % 3 == 0 { Thread.sleep(forTimeInterval: 0.002) }
            own.destroy(window)
        }
        try driver.activate(apps.windows[1])
        Thread.sleep(forTimeInterval: 0.5)
        try driver.activate(apps.windows[0])
        Thread.sleep(forTimeInterval: 0.3)

        XCTAssertTrue(agent.process.isRunning, agent.process.standardError)
        XCTAssertEqual(agent.stop(), 0, agent.process.standardError)
        let usage = try agent.usage()
        XCTAssertEqual(usage.seconds(of: "wmclass:Calm"), 0.5, accuracy: 0.15)
        // The hostile class (invalid UTF-8 in a STRING, so Latin-1, with an escape
        // sequence) was decoded and cleaned, not dropped: ESC is gone. It keeps the
        // focus through the churn of windows that vanish before they can be read.
        XCTAssertGreaterThan(usage.seconds(of: "wmclass:\u{c3}([2J"), 0.25, "\(usage.apps.map(\.id))")
    }

    func testWithoutAWindowManagerTheInputFocusIsFollowed() throws {
        let session = try startXSession(windowManager: false)
        let apps = try DemoApplications(display: session.display, windows: ["left.Left", "right.Right"])
        let driver = try FocusDriver(display: session.display)
        let left = WindowID(UInt(apps.windows[0].dropFirst(2), radix: 16)!)
        let right = WindowID(UInt(apps.windows[1].dropFirst(2), radix: 16)!)
        driver.connection.setInputFocus(to: nil)
        let agent = try AgentRun(
            display: session.display, home: home, environment: try catalogEnvironment(entries: [:]))
        XCTAssertTrue(agent.process.standardError.contains("no window manager"), agent.process.standardError)

        var expected: [String: Double] = [:]
        for (window, id, dwell) in [
            (left, "wmclass:Left", 0.4), (right, "wmclass:Right", 0.3), (left, "wmclass:Left", 0.2),
            (right, "wmclass:Right", 0.5),
        ] {
            let start = Date()
            driver.connection.setInputFocus(to: window)
            Thread.sleep(forTimeInterval: dwell)
            expected[id, default: 0] += Date().timeIntervalSince(start)
        }
        driver.connection.setInputFocus(to: nil)
        Thread.sleep(forTimeInterval: 0.2)
        XCTAssertEqual(agent.stop(), 0)
        let usage = try agent.usage()
        for (id, seconds) in expected {
            // No server timestamps come with focus events: allow for delivery delays.
            XCTAssertEqual(usage.seconds(of: id), seconds, accuracy: 0.04, id)
        }
    }

    func testIdleTimeEndsAtTheLastInputAndInputResumesCounting() throws {
        let xdotool = try requireProgram("xdotool", package: "xdotool")
        let session = try startXSession()
        let apps = try DemoApplications(display: session.display, windows: ["sentinel.Sentinel", "editor.Editor"])
        let driver = try FocusDriver(display: session.display)
        try driver.activate(apps.windows[0])
        let agent = try AgentRun(
            display: session.display, home: home, idleThreshold: 2, environment: try catalogEnvironment(entries: [:]))
        func input() throws -> Date {
            let before = Date()
            let run = try ChildProcess(
                xdotool, ["mousemove_relative", "--", "3", "0"], environment: ["DISPLAY": session.display])
            XCTAssertEqual(run.waitForExit(), 0)
            return before.addingTimeInterval(Date().timeIntervalSince(before) / 2)
        }

        _ = try input()
        let focused = Date()
        try driver.activate(apps.windows[1])
        Thread.sleep(forTimeInterval: 0.5)
        let lastInput = try input()
        Thread.sleep(forTimeInterval: 3.5)  // the 2 s threshold passes
        let status = try agent.cli(["status", "--json"])
        XCTAssertTrue(status.contains("\"idle\" : true"), status)
        let back = try input()
        Thread.sleep(forTimeInterval: 1.0)
        try driver.activate(apps.windows[0])
        let end = Date()
        XCTAssertEqual(agent.stop(), 0)

        let expected = lastInput.timeIntervalSince(focused) + end.timeIntervalSince(back)
        XCTAssertEqual(try agent.usage().seconds(of: "wmclass:Editor"), expected, accuracy: 0.1)
    }

    func testALostXConnectionClosesTheIntervalAndExitsCleanly() throws {
        let session = try startXSession()
        let apps = try DemoApplications(display: session.display, windows: ["editor.Editor"])
        let driver = try FocusDriver(display: session.display)
        try driver.activate(apps.windows[0])
        let agent = try AgentRun(
            display: session.display, home: home, environment: try catalogEnvironment(entries: [:]))
        let started = Date()
        Thread.sleep(forTimeInterval: 1.0)
        session.killServer()
        let killed = Date()
        XCTAssertEqual(agent.process.waitForExit(timeout: 10), 0, agent.process.standardError)
        XCTAssertTrue(agent.process.standardError.contains("the session has ended"), agent.process.standardError)
        let usage = try agent.usage()
        XCTAssertEqual(usage.seconds(of: "wmclass:Editor"), killed.timeIntervalSince(started), accuracy: 0.2)
        let status = try agent.cli(["status"])
        XCTAssertTrue(status.contains("not running"), status)
    }

    func testAKilledAgentLosesAtMostOneSecondAndTheNextRunRecovers() throws {
        let session = try startXSession()
        let apps = try DemoApplications(display: session.display, windows: ["editor.Editor"])
        let driver = try FocusDriver(display: session.display)
        try driver.activate(apps.windows[0])
        let environment = try catalogEnvironment(entries: [:])
        let agent = try AgentRun(display: session.display, home: home, environment: environment)
        let started = Date()
        Thread.sleep(forTimeInterval: 3.4)
        agent.process.signal(SIGKILL)
        let killed = Date()
        agent.process.waitForExit()

        let counted = try agent.usage().seconds(of: "wmclass:Editor")
        let lived = killed.timeIntervalSince(started)
        XCTAssertLessThanOrEqual(counted, lived + 0.05)
        XCTAssertGreaterThanOrEqual(counted, lived - 1.05, "lost more than a second")

        let restarted = try AgentRun(display: session.display, home: home, environment: environment)
        XCTAssertTrue(
            restarted.process.standardError.contains("closed 1 interval(s) a previous run left open"),
            restarted.process.standardError)
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertEqual(restarted.stop(), 0)
        XCTAssertEqual(try restarted.usage().seconds(of: "wmclass:Editor"), counted + 0.5, accuracy: 0.15)
    }

    func testAClassChangeOfTheFocusedWindowMovesTheTimeToTheNewApplication() throws {
        let session = try startXSession()
        let apps = try DemoApplications(display: session.display, windows: ["sentinel.Sentinel", "browser.Browser"])
        let driver = try FocusDriver(display: session.display)
        try driver.activate(apps.windows[0])
        let agent = try AgentRun(
            display: session.display, home: home, environment: try catalogEnvironment(entries: [:]))
        try driver.activate(apps.windows[1])
        Thread.sleep(forTimeInterval: 0.4)
        try apps.command("class \(apps.windows[1]) player Player")
        Thread.sleep(forTimeInterval: 0.6)
        try driver.activate(apps.windows[0])
        XCTAssertEqual(agent.stop(), 0)
        let usage = try agent.usage()
        XCTAssertEqual(usage.seconds(of: "wmclass:Browser"), 0.4, accuracy: 0.06)
        XCTAssertEqual(usage.seconds(of: "wmclass:Player"), 0.6, accuracy: 0.06)
    }

    func testSIGHUPRereadsTheDesktopEntries() throws {
        let session = try startXSession()
        let environment = try catalogEnvironment(entries: [:])
        let apps = try DemoApplications(display: session.display, windows: ["sentinel.Sentinel", "late.Late"])
        let driver = try FocusDriver(display: session.display)
        try driver.activate(apps.windows[0])
        let agent = try AgentRun(display: session.display, home: home, environment: environment)
        try driver.activate(apps.windows[1])
        Thread.sleep(forTimeInterval: 0.3)
        try driver.activate(apps.windows[0])

        let entry = "[Desktop Entry]\nType=Application\nName=Late Arrival\nExec=/usr/bin/true\nStartupWMClass=Late\n"
        try entry.write(
            toFile: environment["XDG_DATA_HOME"]! + "/applications/org.example.Late.desktop", atomically: true,
            encoding: .utf8)
        agent.process.signal(SIGHUP)
        try agent.process.waitForStandardError(containing: "1 applications in the catalog")
        try driver.activate(apps.windows[1])
        Thread.sleep(forTimeInterval: 0.4)
        try driver.activate(apps.windows[0])
        XCTAssertEqual(agent.stop(), 0)

        let usage = try agent.usage()
        XCTAssertEqual(usage.seconds(of: "wmclass:Late"), 0.3, accuracy: 0.06)
        XCTAssertEqual(usage.seconds(of: "org.example.Late.desktop"), 0.4, accuracy: 0.06)
        XCTAssertEqual(usage.apps.first { $0.id == "org.example.Late.desktop" }?.name, "Late Arrival")
    }

    func testALockedScreenDoesNotCount() throws {
        _ = try requireProgram("dbus-daemon", package: "dbus-daemon")
        let session = try startXSession()
        let bus = try PrivateLogindBus()
        var environment = try catalogEnvironment(entries: [:])
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = bus.address
        let apps = try DemoApplications(display: session.display, windows: ["sentinel.Sentinel", "editor.Editor"])
        let driver = try FocusDriver(display: session.display)
        try driver.activate(apps.windows[0])
        let agent = try AgentRun(display: session.display, home: home, environment: environment)
        XCTAssertFalse(agent.process.standardError.contains("no logind"), agent.process.standardError)

        try driver.activate(apps.windows[1])
        Thread.sleep(forTimeInterval: 0.5)
        try bus.logind("lock")
        Thread.sleep(forTimeInterval: 0.2)
        let status = try agent.cli(["status"])
        XCTAssertTrue(status.contains("Screen: locked"), status)
        Thread.sleep(forTimeInterval: 0.5)
        try bus.logind("unlock")
        Thread.sleep(forTimeInterval: 0.4)
        try driver.activate(apps.windows[0])
        XCTAssertEqual(agent.stop(), 0)
        XCTAssertEqual(try agent.usage().seconds(of: "wmclass:Editor"), 0.9, accuracy: 0.08)
    }
}
