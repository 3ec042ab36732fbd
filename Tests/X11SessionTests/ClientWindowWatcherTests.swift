import Foundation
import GLibRuntime
import ScreenwardCore
import ScreenwardTesting
import SessionDisplay
import SessionHarness
import TestSupport
import X11Session
import XCTest

/// The window watcher and the shield's stacking against real windows under openbox,
/// driven from outside with xdotool and wmctrl as a user or another program would.
final class ClientWindowWatcherTests: XSessionTestCase {
    /// A private X session with a watcher on a connection of its own.
    private final class Fixture {
        let session: PrivateXSession
        let connection: XConnection
        let loop = MainLoop()
        let watcher: ClientWindowWatcher
        var events: [ClientWindowEvent] = []

        init(session: PrivateXSession) throws {
            self.session = session
            connection = try XConnection(displayName: session.display)
            watcher = ClientWindowWatcher(connection: connection, loop: loop)
        }

        func start() {
            watcher.start { [unowned self] event in events.append(event) }
        }

        /// Runs the loop until `condition` holds (at most `timeout`).
        @discardableResult
        func wait(timeout: Duration = .seconds(10), _ condition: () -> Bool) -> Bool {
            loop.iterate(until: condition, timeout: timeout)
        }

        func window(_ id: WindowID) -> ClientWindow? { watcher.windows[id] }

        /// Runs an X tool on this display and returns its output.
        @discardableResult
        func run(_ program: String, _ arguments: [String]) throws -> String {
            let process = Process()
            process.executableURL = try requireTool(program)
            process.arguments = arguments
            process.environment = ProcessInfo.processInfo.environment.merging(["DISPLAY": session.display]) { $1 }
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw HarnessError.failed("\(program) \(arguments) exited \(process.terminationStatus)")
            }
            return String(decoding: data, as: UTF8.self)
        }

        /// Where openbox draws `client`: its frame window's outer rectangle, from xwininfo.
        func drawnFrame(of client: WindowID) throws -> ScreenRect {
            var window = client.description
            for _ in 0..<16 {
                let info = try run("xwininfo", ["-children", "-id", window])
                guard let parent = Self.value(after: "Parent window id: ", in: info)?.split(separator: " ").first else {
                    throw HarnessError.failed("no parent in \(info)")
                }
                if info.contains("Parent window id: \(parent) (the root window)") { break }
                window = String(parent)
            }
            let info = try run("xwininfo", ["-id", window])
            func number(_ label: String) throws -> Int {
                guard let text = Self.value(after: label, in: info),
                    let value = Int(text.trimmingCharacters(in: .whitespaces))
                else {
                    throw HarnessError.failed("no \(label) in \(info)")
                }
                return value
            }
            let border = try number("Border width: ")
            return ScreenRect(
                x: try number("Absolute upper-left X: "), y: try number("Absolute upper-left Y: "),
                width: try number("Width: ") + 2 * border, height: try number("Height: ") + 2 * border)
        }

        /// Window ids of a root property (`_NET_CLIENT_LIST_STACKING`…), from xprop.
        func rootWindows(_ property: String) throws -> [WindowID] {
            let text = try run("xprop", ["-root", property])
            guard let list = text.split(separator: "#", maxSplits: 1).last else { return [] }
            return list.split(separator: ",").compactMap { parseWindowID(String($0)) }
        }

        private static func value(after label: String, in text: String) -> String? {
            guard let range = text.range(of: label) else { return nil }
            return String(text[range.upperBound...].prefix { $0 != "\n" })
        }

    }

    /// Runs `body` with a fixture; everything it made (connections, loop sources)
    /// is gone before the X server ends, or Xlib would lose its connection.
    private func withFixture(windowManager: Bool = true, tools: [String] = [], _ body: (Fixture) throws -> Void) throws
    {
        for tool in tools + ["xwininfo", "xprop"] { _ = try requireTool(tool) }
        let session = try startXSession(windowManager: windowManager)
        defer { session.stop() }
        try runFixture(session, windowManager: windowManager, body)
    }

    /// A function of its own, so the fixture and the body's objects end when it returns.
    private func runFixture(_ session: PrivateXSession, windowManager: Bool, _ body: (Fixture) throws -> Void) throws {
        let x = try Fixture(session: session)
        defer { x.watcher.stop() }
        if windowManager {
            // openbox announces itself before it manages windows; its client list comes last.
            let deadline = Date().addingTimeInterval(10)
            while (try? x.run("xprop", ["-root", "_NET_CLIENT_LIST"]))?.contains("_NET_CLIENT_LIST(WINDOW)") != true,
                Date() < deadline
            {
                Thread.sleep(forTimeInterval: 0.02)
            }
        }
        try body(x)
    }

    private func ids(_ app: DemoApplications) throws -> [WindowID] {
        try app.windows.map { text in
            guard let id = parseWindowID(text) else { throw HarnessError.failed("bad window id \(text)") }
            return id
        }
    }

    // MARK: Clients

    func testReportsExistingAndNewClientsWithTheirFactsAndFrames() throws {
        try withFixture { x in
            let editor = try DemoApplications(display: x.session.display, windows: ["editor.Editor:Writing"])
            let editorID = try ids(editor)[0]

            // Let openbox manage it (a first watcher sees it arrive), then start afresh.
            let first = ClientWindowWatcher(connection: x.connection, loop: x.loop)
            var seen = false
            first.start { if case .added(let client) = $0, client.id == editorID { seen = true } }
            XCTAssertTrue(x.wait { seen && first.windows[editorID]?.isViewable == true })
            first.stop()

            x.start()
            // At start, before any loop iteration: every current client, then the active window.
            guard case .added(let existing)? = x.events.first(where: { if case .added = $0 { true } else { false } })
            else {
                return XCTFail("no .added at start: \(x.events)")
            }
            XCTAssertEqual(existing.id, editorID)
            XCTAssertEqual(existing.facts.wmInstance, "editor")
            XCTAssertEqual(existing.facts.wmClass, "Editor")
            XCTAssertEqual(existing.facts.title, "Writing")
            XCTAssertEqual(existing.pid, editor.process.pid)
            XCTAssertTrue(existing.isViewable)
            XCTAssertFalse(existing.isFullscreen)
            XCTAssertEqual(existing.desktop, 0)
            XCTAssertEqual(existing.frame, try x.drawnFrame(of: editorID))
            guard case .activated? = x.events.last else { return XCTFail("no .activated at start: \(x.events)") }

            let mail = try DemoApplications(display: x.session.display, windows: ["mail.Mail:Inbox"])
            let mailID = try ids(mail)[0]
            XCTAssertTrue(x.wait { x.window(mailID)?.isViewable == true && x.window(mailID)?.frame.width ?? 0 > 480 })
            let added = x.events.compactMap { event -> ClientWindow? in
                if case .added(let client) = event, client.id == mailID { client } else { nil }
            }
            XCTAssertEqual(added.count, 1)
            XCTAssertEqual(added.first?.facts.wmClass, "Mail")
            XCTAssertEqual(added.first?.pid, mail.process.pid)
            XCTAssertTrue(x.wait { (try? x.drawnFrame(of: mailID)) == x.window(mailID)?.frame })
            // openbox's frames are override-redirect: they are not unmanaged windows.
            XCTAssertFalse(x.events.contains { if case .unmanagedMapped = $0 { true } else { false } }, "\(x.events)")
        }
    }

    func testMovingResizingMinimizingAndDesktopsAreFollowed() throws {
        try withFixture(tools: ["xdotool"]) { x in
            let app = try DemoApplications(display: x.session.display, windows: ["editor.Editor"])
            let id = try ids(app)[0]
            x.start()
            XCTAssertTrue(x.wait { x.window(id)?.isViewable == true })

            try x.run("xdotool", ["windowmove", id.description, "300", "200"])
            XCTAssertTrue(
                x.wait {
                    (try? x.drawnFrame(of: id)).map { $0.x >= 290 && $0.x <= 310 } == true
                        && x.window(id)?.frame == (try? x.drawnFrame(of: id))
                },
                "moved: \(String(describing: x.window(id)?.frame)) vs \(String(describing: try? x.drawnFrame(of: id)))")
            XCTAssertTrue(x.events.contains { if case .changed(let client) = $0 { client.id == id } else { false } })

            try x.run("xdotool", ["windowsize", id.description, "300", "150"])
            XCTAssertTrue(
                x.wait {
                    x.window(id)?.frame == (try? x.drawnFrame(of: id)) && (try? x.drawnFrame(of: id))?.width ?? 0 < 330
                },
                """
                resized: \(String(describing: x.window(id)?.frame)) vs \
                \(String(describing: try? x.drawnFrame(of: id)))
                """
            )

            try x.run("xdotool", ["windowminimize", id.description])
            XCTAssertTrue(x.wait { x.window(id)?.isViewable == false }, "minimized")
            try app.command("activate \(id)")
            XCTAssertTrue(x.wait { x.window(id)?.isViewable == true }, "restored")

            if Int(try x.run("xdotool", ["get_num_desktops"]).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 1 < 2
            {
                try x.run("xdotool", ["set_num_desktops", "2"])
            }
            try x.run("xdotool", ["set_desktop_for_window", id.description, "1"])
            XCTAssertTrue(
                x.wait { x.window(id)?.desktop == 1 }, "desktop: \(String(describing: x.window(id)?.desktop))")
            // openbox unmaps (and marks Iconic) what is on a desktop not shown.
            XCTAssertTrue(x.wait { x.window(id)?.isViewable == false })
            try x.run("xdotool", ["windowactivate", id.description])
            XCTAssertTrue(
                x.wait { x.window(id)?.isViewable == true && x.window(id)?.desktop == 1 }, "shown on its desktop")
        }
    }

    func testFullscreenIsFollowed() throws {
        try withFixture(tools: ["wmctrl"]) { x in
            let app = try DemoApplications(display: x.session.display, windows: ["player.Player"])
            let id = try ids(app)[0]
            x.start()
            XCTAssertTrue(x.wait { x.window(id)?.isViewable == true }, "\(x.events)")
            try x.run("wmctrl", ["-i", "-r", id.description, "-b", "add,fullscreen"])
            XCTAssertTrue(
                x.wait {
                    x.window(id)?.isFullscreen == true
                        && x.window(id)?.frame == ScreenRect(x: 0, y: 0, width: 1280, height: 800)
                },
                "fullscreen: \(String(describing: x.window(id)))")
            try x.run("wmctrl", ["-i", "-r", id.description, "-b", "remove,fullscreen"])
            XCTAssertTrue(x.wait { x.window(id)?.isFullscreen == false })
        }
    }

    /// A layer change moves no window and changes none of its facts: only the stacking says
    /// it happened (the shield audit looks again when told).
    func testARestackIsReported() throws {
        try withFixture(tools: ["wmctrl"]) { x in
            let app = try DemoApplications(display: x.session.display, windows: ["editor.Editor", "mail.Mail"])
            let windows = try ids(app)
            let below = windows[0]
            x.start()
            XCTAssertTrue(x.wait { windows.allSatisfy { x.window($0)?.isViewable == true } })
            // What the window manager does as it maps them (a restack or none, by timing: the
            // windows may be stacked before the watcher starts) is drained and forgotten; the
            // test looks only at what the layer change reports.
            x.wait(timeout: .milliseconds(500)) { false }
            x.events.removeAll()
            try x.run("wmctrl", ["-i", "-r", below.description, "-b", "add,above"])
            XCTAssertTrue(
                x.wait { x.events.contains { if case .restacked = $0 { true } else { false } } }, "\(x.events)")
            XCTAssertFalse(x.events.contains { if case .changed = $0 { true } else { false } }, "\(x.events)")
        }
    }

    func testActivationAndClosingAreReported() throws {
        try withFixture { x in
            let app = try DemoApplications(display: x.session.display, windows: ["editor.Editor", "mail.Mail"])
            let windows = try ids(app)
            x.start()
            XCTAssertTrue(x.wait { windows.allSatisfy { x.window($0)?.isViewable == true } })

            let other = windows.first { $0 != x.watcher.activeWindow }!
            let current = windows.first { $0 != other }!
            for target in [other, current, other] {
                x.events.removeAll()
                try app.command("activate \(target)")
                XCTAssertTrue(x.wait { x.watcher.activeWindow == target })
                let activations = x.events.compactMap { event -> (WindowID?, UInt32)? in
                    if case .activated(let window, let time) = event { (window, time.rawValue) } else { nil }
                }
                XCTAssertEqual(activations.last?.0, target)
                XCTAssertGreaterThan(activations.last?.1 ?? 0, 0, "the PropertyNotify's server time")
            }

            x.events.removeAll()
            try app.command("destroy \(windows[1])")
            XCTAssertTrue(x.wait { x.window(windows[1]) == nil })
            XCTAssertTrue(x.events.contains { if case .removed(let id) = $0 { id == windows[1] } else { false } })
            XCTAssertNotNil(x.window(windows[0]))
        }
    }

    func testOverrideRedirectWindowsAreReportedAsUnmanaged() throws {
        try withFixture { x in
            x.start()
            let popup = try DemoApplications(
                display: x.session.display, windows: ["popup.Popup"], extraArguments: ["--override-redirect"])
            let id = try ids(popup)[0]
            var found: (facts: WindowFacts?, pid: Int32?)?
            XCTAssertTrue(
                x.wait {
                    for case .unmanagedMapped(let window, let facts, let pid) in x.events where window == id {
                        found = (facts, pid)
                    }
                    return found != nil
                })
            XCTAssertEqual(found?.facts?.wmClass, "Popup")
            XCTAssertEqual(found?.pid, popup.process.pid)
            XCTAssertNil(x.window(id), "not a managed client")
        }
    }

    func testHostilePropertiesDoNotBreakTheWatcher() throws {
        try withFixture { x in
            let appConnection = try XConnection(displayName: x.session.display)
            let appEvents = x.loop.attach(appConnection)
            defer { appEvents.cancel() }
            let demo = DemoWindows(connection: appConnection)
            let id = demo.create(.init(instance: "bad", className: "Bad", title: "Bad"))
            x.start()
            XCTAssertTrue(
                x.wait { x.window(id)?.isViewable == true },
                "\(x.events) \(String(describing: x.window(id))) wm=\(x.watcher.usesWindowManager)")
            let frame = x.window(id)?.frame
            // Wrong formats and sizes where numbers are expected, a huge class.
            demo.setRawProperty(id, "_NET_FRAME_EXTENTS", type: "CARDINAL", bytes: Array(repeating: 0xff, count: 7))
            demo.setRawProperty(id, "WM_STATE", type: "WM_STATE", bytes: [3])
            demo.setRawProperty(
                id, "WM_CLASS", type: "STRING", bytes: Array(repeating: 0x41, count: 200_000) + [0, 0x42])
            demo.setRawProperty(id, "_NET_WM_PID", type: "CARDINAL", bytes: [1, 2, 3])
            demo.setTitle(id, "after")
            XCTAssertTrue(x.wait { x.window(id)?.facts.title == "after" })
            let client = try XCTUnwrap(x.window(id))
            XCTAssertLessThanOrEqual(client.facts.wmInstance?.count ?? 0, 256)
            XCTAssertTrue(client.isViewable, "an 8-bit WM_STATE is not Iconic")
            XCTAssertEqual(client.frame.width, (frame?.width ?? 0) - 2, "extents of the wrong format count as none")
            demo.destroy(id)
            XCTAssertTrue(x.wait { x.window(id) == nil })
        }
    }

    func testWithoutAWindowManagerTopLevelsAreTheClients() throws {
        try withFixture(windowManager: false) { x in
            x.start()
            XCTAssertFalse(x.watcher.usesWindowManager)
            let app = try DemoApplications(display: x.session.display, windows: ["editor.Editor"])
            let id = try ids(app)[0]
            XCTAssertTrue(x.wait { x.window(id)?.isViewable == true })
            XCTAssertEqual(x.window(id)?.frame, ScreenRect(x: 40, y: 40, width: 480, height: 320))
            XCTAssertNil(x.window(id)?.desktop)
            try app.command("destroy \(id)")
            XCTAssertTrue(x.wait { x.window(id) == nil })
        }
    }

    // MARK: Shield stacking

    func testPresentPutsTheShieldActiveAboveTheTargetOnItsDesktop() throws {
        try withFixture(tools: ["xdotool"]) { x in
            let target = try DemoApplications(display: x.session.display, windows: ["game.Game"])
            let shield = try DemoApplications(display: x.session.display, windows: ["shield.Shield"])
            let targetID = try ids(target)[0]
            let shieldID = try ids(shield)[0]
            x.start()
            XCTAssertTrue(x.wait { x.window(targetID)?.isViewable == true && x.window(shieldID)?.isViewable == true })
            if Int(try x.run("xdotool", ["get_num_desktops"]).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 1 < 2
            {
                try x.run("xdotool", ["set_num_desktops", "2"])
            }
            try x.run("xdotool", ["set_desktop_for_window", targetID.description, "1"])
            XCTAssertTrue(x.wait { x.window(targetID)?.desktop == 1 })

            // The target takes the focus; the shield answers its activation.
            x.events.removeAll()
            // As a user would (openbox does not follow a bare request to another desktop).
            try x.run("xdotool", ["windowactivate", targetID.description])
            var activation: ServerTime?
            XCTAssertTrue(
                x.wait {
                    for case .activated(let window, let time) in x.events where window == targetID { activation = time }
                    return activation != nil
                })
            let stackingConnection = try XConnection(displayName: x.session.display)
            let stacking = ShieldStacking(connection: stackingConnection)
            stacking.present(shield: shieldID, over: try XCTUnwrap(x.window(targetID)), serverTime: activation)

            XCTAssertTrue(x.wait { x.watcher.activeWindow == shieldID }, "the shield holds the focus")
            XCTAssertTrue(x.wait { x.window(shieldID)?.desktop == 1 }, "on the target's desktop")
            let order = try x.rootWindows("_NET_CLIENT_LIST_STACKING")
            let shieldIndex = try XCTUnwrap(order.firstIndex(of: shieldID))
            let targetIndex = try XCTUnwrap(order.firstIndex(of: targetID))
            XCTAssertGreaterThan(shieldIndex, targetIndex, "above the target: \(order)")
            XCTAssertTrue(
                try x.run("xprop", ["-id", shieldID.description, "_NET_WM_STATE"]).contains("_NET_WM_STATE_ABOVE"))

            // Activating the target again: the shield comes back over it.
            try target.command("activate \(targetID)")
            XCTAssertTrue(x.wait { x.watcher.activeWindow == targetID }, "\(x.events)")
            stacking.present(
                shield: shieldID, over: try XCTUnwrap(x.window(targetID)), serverTime: x.connection.serverTimeNow())
            XCTAssertTrue(x.wait { x.watcher.activeWindow == shieldID })
        }
    }

    func testFollowMovesTheShieldToTheTargetsDesktop() throws {
        try withFixture(tools: ["xdotool"]) { x in
            let apps = try DemoApplications(display: x.session.display, windows: ["game.Game", "shield.Shield"])
            let windows = try ids(apps)
            x.start()
            XCTAssertTrue(x.wait { windows.allSatisfy { x.window($0)?.isViewable == true } })
            if Int(try x.run("xdotool", ["get_num_desktops"]).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 1 < 2
            {
                try x.run("xdotool", ["set_num_desktops", "2"])
            }
            try x.run("xdotool", ["set_desktop_for_window", windows[0].description, "1"])
            XCTAssertTrue(x.wait { x.window(windows[0])?.desktop == 1 })
            ShieldStacking(connection: x.connection).follow(
                shield: windows[1], toDesktopOf: try XCTUnwrap(x.window(windows[0])))
            XCTAssertTrue(x.wait { x.window(windows[1])?.desktop == 1 })
        }
    }
}

private func parseWindowID(_ text: String) -> WindowID? {
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    guard trimmed.hasPrefix("0x"), let raw = UInt(trimmed.dropFirst(2), radix: 16) else { return nil }
    return WindowID(raw)
}
