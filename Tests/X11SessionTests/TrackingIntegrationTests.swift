import Foundation
import SessionHarness
import X11Session
import XCTest

/// The real agent, real windows, real openbox: totals must match the timeline the
/// X server itself recorded.
final class TrackingIntegrationTests: XSessionTestCase {
    let editorEntry = """
        [Desktop Entry]
        Type=Application
        Name=Text Editor
        Exec=/usr/bin/true
        StartupWMClass=Editor
        Categories=Utility;TextEditor;
        """

    func testPerApplicationTotalsMatchAScriptedTimeline() throws {
        let session = try startXSession()
        let catalog = try catalogEnvironment(entries: ["org.example.Editor.desktop": editorEntry])
        let apps = try DemoApplications(
            display: session.display,
            windows: ["sentinel.Sentinel", "editor.Editor:Text Editor", "game.Game", "term.Term"])
        let driver = try FocusDriver(display: session.display)
        let (sentinel, editor, game, term) = (apps.windows[0], apps.windows[1], apps.windows[2], apps.windows[3])
        // The sentinel holds the focus while the agent starts and after the timeline.
        try driver.activate(sentinel)
        let agent = try AgentRun(display: session.display, home: home, environment: catalog)
        let firstEntry = driver.log.entries.count - 1
        var generator = SplitMix(seed: 7)
        let order = [editor, game, term]
        var previous = ""
        for _ in 0..<40 {
            var next = order[Int(generator.next() % 3)]
            if next == previous { next = order[(order.firstIndex(of: next)! + 1) % 3] }
            previous = next
            try driver.activate(next)
            Thread.sleep(forTimeInterval: Double(20 + generator.next() % 230) / 1000)
        }
        try driver.activate(sentinel)
        Thread.sleep(forTimeInterval: 0.2)
        XCTAssertEqual(agent.stop(), 0)

        let truth = ActiveWindowTruth.milliseconds(Array(driver.log.entries[firstEntry...]))
        let usage = try agent.usage()
        let expected = [
            ("org.example.Editor.desktop", editor), ("wmclass:Game", game), ("wmclass:Term", term),
        ]
        for (id, window) in expected {
            let measured = usage.seconds(of: id) * 1000
            let actual = truth[window] ?? 0
            print("\(id): agent \(measured) ms, X server \(actual) ms")
            XCTAssertGreaterThan(actual, 500, "the timeline gave \(id) real time")
            XCTAssertEqual(measured, actual, accuracy: 10, "\(id): agent \(measured) ms, X server \(actual) ms")
        }
        XCTAssertEqual(usage.apps.first { $0.id == "org.example.Editor.desktop" }?.name, "Text Editor")
        XCTAssertTrue(agent.process.standardError.contains("stopped (SIGTERM)"), agent.process.standardError)
    }

    /// A busy machine can keep the agent from running for a while; the windows
    /// that held the focus meanwhile must still get their time, with the server's
    /// timestamps, when it catches up.
    func testAnAgentThatFellBehindStillCreditsEveryWindow() throws {
        let session = try startXSession()
        let apps = try DemoApplications(
            display: session.display, windows: ["sentinel.Sentinel", "first.First", "second.Second", "third.Third"])
        let driver = try FocusDriver(display: session.display)
        try driver.activate(apps.windows[0])
        let agent = try AgentRun(
            display: session.display, home: home, environment: try catalogEnvironment(entries: [:]))
        let firstEntry = driver.log.entries.count - 1

        agent.process.signal(SIGSTOP)
        for (window, dwell) in [(apps.windows[1], 0.2), (apps.windows[2], 0.3), (apps.windows[3], 0.25)] {
            try driver.activate(window)
            Thread.sleep(forTimeInterval: dwell)
        }
        try driver.activate(apps.windows[0])
        agent.process.signal(SIGCONT)
        Thread.sleep(forTimeInterval: 0.3)
        XCTAssertEqual(agent.stop(), 0)

        let truth = ActiveWindowTruth.milliseconds(Array(driver.log.entries[firstEntry...]))
        let usage = try agent.usage()
        for (index, name) in ["First", "Second", "Third"].enumerated() {
            let actual = truth[apps.windows[index + 1]] ?? 0
            XCTAssertGreaterThan(actual, 150)
            XCTAssertEqual(usage.seconds(of: "wmclass:\(name)") * 1000, actual, accuracy: 5, name)
        }
    }
}
