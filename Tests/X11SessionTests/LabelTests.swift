@_spi(Screenward) import FamilyControls
import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardCore
import ScreenwardIPC
import ScreenwardTesting
import SessionDisplay
import SessionHarness
import X11Session
import XCTest

/// `Label(token)`: the agent draws what an app's token stands for inside the app's own window
/// (XEmbed), and the app hears only that it was drawn. The test process is the app: it makes
/// the window on the display and asks the real agent.
final class LabelTests: XSessionTestCase {
    private static let app = "org.example.labels"

    func testALabelIsDrawnInTheAppsOwnWindowAndNowhereElse() async throws {
        _ = try requireTool("xwininfo")
        let scene = try startShieldScene()
        defer { scene.stop() }
        let display = scene.session.display
        try scene.agent.allowAccess(Self.app, "org.example.other")
        let client = ServiceClient(
            transport: SocketTransport(path: scene.agent.home.appendingPathComponent("agent.sock").path),
            bundleIdentifier: Self.app)
        ScreenwardApp.client = client
        let selection = try await client.call(
            AuthorizationMethods.issueSelection, SelectionRequest(applications: ["game.desktop"], categories: ["Game"]))
        let game = try XCTUnwrap(selection.applicationTokens.first)
        let games = try XCTUnwrap(selection.categoryTokens.first)

        // The app's own windows, made by this process.
        let windows = DemoWindows(connection: scene.connection)
        let spec = DemoWindows.Spec(instance: "labels", className: "Labels", title: "Labels", width: 320, height: 90)
        let first = UInt(windows.create(spec, x: 100, y: 100).rawValue)
        let second = UInt(windows.create(spec, x: 100, y: 300).rawValue)
        try await Label(game).show(inWindow: first)
        try await Label(games, style: .titleOnly).show(inWindow: second)
        let plug = try waitForChild(of: first, on: display)
        _ = try waitForChild(of: second, on: display)
        screenshot("label-in-app-window.png", of: scene)

        // Text is drawn in the plug: dark pixels on the theme's light background.
        let area = try geometry(of: plug, on: display)
        XCTAssertGreaterThan(area.width, 20)
        let capture = try XCTUnwrap(ScreenCapture(connection: scene.connection, region: area))
        var dark = 0
        for y in 0..<area.height {
            for x in 0..<area.width {
                let pixel = capture.pixel(x: area.x + x, y: area.y + y)
                if Int(pixel.red) + Int(pixel.green) + Int(pixel.blue) < 240 { dark += 1 }
            }
        }
        XCTAssertGreaterThan(dark, 30, "no text in the label at \(area)")

        // Another process's window is refused, and so is another app's token.
        let other = try DemoApplications(display: display, windows: ["chat.Chat"])
        do {
            try await Label(game).show(inWindow: UInt(id(other.windows[0]).rawValue))
            XCTFail("a label was drawn in a window another process made")
        } catch {
            XCTAssertTrue("\(error)".contains("is not one \(Self.app) made"), "\(error)")
        }
        let stranger = ServiceClient(
            transport: SocketTransport(path: scene.agent.home.appendingPathComponent("agent.sock").path),
            bundleIdentifier: "org.example.other")
        let theirs = try await stranger.call(
            AuthorizationMethods.issueSelection, SelectionRequest(applications: ["notes.desktop"]))
        do {
            try await Label(try XCTUnwrap(theirs.applicationTokens.first)).show(inWindow: second)
            XCTFail("a label was drawn for another app's token")
        } catch {
            XCTAssertTrue("\(error)".contains("not one of \(Self.app)'s"), "\(error)")
        }

        // The label goes with the app's window.
        windows.destroy(WindowID(first))
        let deadline = Date().addingTimeInterval(10)
        while (try? geometry(of: plug, on: display)) != nil, Date() < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        XCTAssertNil(try? geometry(of: plug, on: display), "the label outlived its window")
    }

    /// The first child window of `window`, once there is one and it is mapped.
    private func waitForChild(of window: UInt, on display: String) throws -> UInt {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let tree = try toolOutput("xwininfo", ["-children", "-id", "\(window)"], display: display)
            if let line = tree.split(separator: "\n").first(where: {
                $0.trimmingCharacters(in: .whitespaces).hasPrefix("0x")
            }),
                let hex = line.trimmingCharacters(in: .whitespaces).split(separator: " ").first,
                let child = UInt(hex.dropFirst(2), radix: 16),
                (try toolOutput("xwininfo", ["-id", "\(child)"], display: display)).contains("IsViewable")
            {
                return child
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        throw HarnessError.timedOut("a label in window \(window)")
    }

    /// Where `window` is on the screen.
    private func geometry(of window: UInt, on display: String) throws -> ScreenRect {
        let info = try toolOutput("xwininfo", ["-id", "\(window)"], display: display)
        func value(_ key: String) throws -> Int {
            let line = info.split(separator: "\n").first { $0.contains(key) }
            guard let text = line?.split(separator: ":").last,
                let number = Int(text.trimmingCharacters(in: .whitespaces))
            else { throw HarnessError.failed("no \(key) in \(info)") }
            return number
        }
        return ScreenRect(
            x: try value("Absolute upper-left X"), y: try value("Absolute upper-left Y"), width: try value("Width"),
            height: try value("Height"))
    }
}
