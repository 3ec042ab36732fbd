import Foundation
import ScreenwardCore
import ScreenwardTesting
import SessionDisplay
import SessionHarness
import X11Session
import XCTest

/// The shield window as a person and the window manager meet it: where it lands, what
/// it draws, what its buttons and keys do, and that it cannot be closed.
final class ShieldWindowTests: ShieldUITestCase {
    private let frame = ScreenRect(x: 150, y: 90, width: 900, height: 600)

    // Colors chosen apart from each other and opaque, so the expected pixels are exact.
    private let background = ScreenCapture.Pixel(hex: 0x336699)
    private let buttonBackground = ScreenCapture.Pixel(hex: 0xE0663D)
    private let titleColor = ScreenCapture.Pixel(hex: 0xFFFFFF)
    private let subtitleColor = ScreenCapture.Pixel(hex: 0xFFCC00)
    private let secondaryColor = ScreenCapture.Pixel(hex: 0x7CFC00)

    private func customConfiguration(secondaryButton: Bool) throws -> String {
        let secondary =
            secondaryButton ? ##", "secondaryButtonLabel": {"text": "Ask for access", "color": "#7CFC00"}"## : ""
        return try configurationFile(
            """
            {"backgroundBlurStyle": "systemMaterialDark", "backgroundColor": "#336699FF",
             "title": {"text": "Time for a break", "color": "#FFFFFF"},
             "subtitle": {"text": "Come back tomorrow, or ask for more time.", "color": "#FFCC00"},
             "primaryButtonLabel": {"text": "Close Editor", "color": "#FFFFFF"},
             "primaryButtonBackgroundColor": "#E0663D"\(secondary)}
            """)
    }

    private var corner: ScreenRect { ScreenRect(x: frame.x + 10, y: frame.y + 10, width: 60, height: 60) }

    /// Shows the custom shield and finds its primary button by its color.
    private func showCustom(secondaryButton: Bool) throws -> (ShieldView, ScreenCapture, button: ScreenRect) {
        let view = try showShield(
            [
                "--configuration", try customConfiguration(secondaryButton: secondaryButton), "--frame",
                frame.description,
            ], expecting: frame)
        let capture = try capture(frame, when: "the custom shield drawn") {
            $0.average(in: corner, isNear: background) && $0.band(of: buttonBackground) != nil
        }
        return (view, capture, capture.band(of: buttonBackground)!)
    }

    func testTheDefaultShieldIsAManagedWindowExactlyOverItsFrame() throws {
        let view = try showShield(["--app-name", "Editor", "--frame", frame.description], expecting: frame)
        let names = connection.names(of: view.window)
        XCTAssertEqual(names.instance, "shield")
        XCTAssertEqual(names.className, "Screenward")
        XCTAssertEqual(names.title, "Editor (restricted)")
        try waitUntil("the shield activated") { self.connection.activeWindowProperty() == view.window }
        XCTAssertEqual(connection.rootFrame(of: view.window), frame)
    }

    func testAShieldOverAWindowCoversItsInside() throws {
        let app = try DemoApplications(display: session.display, windows: ["editor.Editor:Editor"])
        let target = try XCTUnwrap(UInt(app.windows[0].dropFirst(2), radix: 16).map(WindowID.init))
        try waitUntil("the editor mapped") {
            self.connection.rootFrame(of: target) != nil && self.connection.isMapped(target)
        }
        let targetFrame = try XCTUnwrap(connection.rootFrame(of: target))
        let view = try showShield(["--app-name", "Editor", "--over", app.windows[0]], expecting: targetFrame)
        XCTAssertEqual(connection.names(of: view.window).title, "Editor (restricted)")
    }

    func testAShieldCanCoverTheWholeScreen() throws {
        let screen = ScreenRect(x: 0, y: 0, width: 1280, height: 800)
        let view = try showShield(["--frame", screen.description], expecting: screen)
        XCTAssertTrue(connection.isMapped(view.window))
    }

    func testTheShieldDrawsItsBackgroundButtonAndTexts() throws {
        let (_, capture, button) = try showCustom(secondaryButton: false)
        // An opaque background color hides the blurred backdrop entirely.
        XCTAssertTrue(
            capture.average(in: corner, isNear: background),
            "corner: \(String(describing: capture.averageColor(in: corner)))")
        // The button: a filled, centered band at least 200 px wide with its label inside.
        XCTAssertGreaterThanOrEqual(button.width, 200)
        XCTAssertEqual(Double(button.x + button.width / 2), Double(frame.x + frame.width / 2), accuracy: 3)
        XCTAssertGreaterThan(capture.count(of: titleColor, in: button), 20, "the button's label")
        // Above the button: the title (and the symbolic icon) in its color, the subtitle in its own.
        let above = ScreenRect(x: frame.x, y: frame.y, width: frame.width, height: button.y - frame.y)
        XCTAssertGreaterThan(capture.count(of: titleColor, in: above), 300, "title pixels")
        XCTAssertGreaterThan(capture.count(of: subtitleColor, in: above), 100, "subtitle pixels")
        let titleBand = try XCTUnwrap(capture.band(of: titleColor, tolerance: 40, minimumPerRow: 20))
        let subtitleBand = try XCTUnwrap(capture.band(of: subtitleColor, tolerance: 40, minimumPerRow: 20))
        XCTAssertLessThan(titleBand.y, subtitleBand.y, "the title comes first")
        XCTAssertLessThan(subtitleBand.y + subtitleBand.height, button.y, "the subtitle comes before the button")
        // Below the button, nothing but background: no secondary button was configured.
        let below = ScreenRect(
            x: frame.x, y: button.y + button.height + 4, width: frame.width,
            height: frame.y + frame.height - button.y - button.height - 4)
        XCTAssertEqual(capture.count(of: secondaryColor, in: below), 0)
        XCTAssertTrue(capture.average(in: below, isNear: background, tolerance: 2))
    }

    /// The agent starts GTK without the desktop's theme (its memory is for the guardian's
    /// dialog); its shields must not miss it: every pixel of a focused shield with both
    /// buttons is the same with the desktop's theme loaded as without it.
    func testTheShieldLooksTheSameWithoutTheDesktopTheme() throws {
        func shownFocused(_ arguments: [String]) throws -> (ShieldView, ScreenCapture) {
            let view = try showShield(
                ["--configuration", try customConfiguration(secondaryButton: true), "--frame", frame.description]
                    + arguments, expecting: frame)
            try waitUntil("the shield activated") { self.connection.activeWindowProperty() == view.window }
            // Drawn, then settled: two captures in a row agree (the focus ring comes with the focus).
            var previous: ScreenCapture?
            let capture = try capture(frame, when: "the shield drawn and settled") { capture in
                defer { previous = capture }
                return capture.average(in: corner, isNear: background) && capture.band(of: buttonBackground) != nil
                    && previous.map { capture.differingPixels(from: $0) == 0 } == true
            }
            return (view, capture)
        }
        let (own, withoutTheme) = try shownFocused([])
        XCTAssertFalse(own.desktopTheme, "screenward-shieldview, like the agent, starts without the desktop theme")
        own.process.closeInput()
        XCTAssertEqual(own.process.waitForExit(timeout: 10), 0)
        try waitUntil("the first shield gone") { !self.connection.isMapped(own.window) }
        let (desktop, withTheme) = try shownFocused(["--desktop-theme"])
        XCTAssertTrue(desktop.desktopTheme, "--desktop-theme loads the desktop's theme")
        XCTAssertEqual(withoutTheme.differingPixels(from: withTheme), 0, "pixels that differ")
    }

    func testASecondaryButtonAppearsOnlyWhenConfiguredAndReportsItsPress() throws {
        let (view, capture, button) = try showCustom(secondaryButton: true)
        let below = ScreenRect(
            x: frame.x, y: button.y + button.height, width: frame.width,
            height: frame.y + frame.height - button.y - button.height)
        XCTAssertGreaterThan(capture.count(of: secondaryColor, in: below), 50, "the secondary button's label")
        let label = try XCTUnwrap(
            ScreenCapture(connection: connection, region: below)?.band(
                of: secondaryColor, tolerance: 60, minimumPerRow: 3))
        try xdotool([
            "mousemove", "--sync", "\(label.x + label.width / 2)", "\(label.y + label.height / 2)", "click", "1",
        ])
        try view.waitForLine("action secondaryButtonPressed")
        XCTAssertFalse(view.process.outputLines.contains("action primaryButtonPressed"))
    }

    func testClickingThePrimaryButtonReportsTheAction() throws {
        let (view, _, button) = try showCustom(secondaryButton: false)
        try xdotool([
            "mousemove", "--sync", "\(button.x + button.width / 2)", "\(button.y + button.height / 2)", "click", "1",
        ])
        try view.waitForLine("action primaryButtonPressed")
        XCTAssertTrue(connection.isMapped(view.window), "the shield stays until its owner hides it")
    }

    func testEscapeDoesNothingAndEnterPressesThePrimaryButton() throws {
        let (view, _, _) = try showCustom(secondaryButton: true)
        try waitUntil("the shield activated") { self.connection.activeWindowProperty() == view.window }
        // Real key presses (XTEST) go to the focused window; the primary button has the focus.
        try xdotool(["key", "Escape"])
        try xdotool(["key", "Return"])
        try view.waitForLine("action primaryButtonPressed")
        XCTAssertEqual(view.process.outputLines.filter { $0.hasPrefix("action") }, ["action primaryButtonPressed"])
        XCTAssertTrue(connection.isMapped(view.window))
    }

    func testRedrawChangesTheShieldInPlace() throws {
        let (view, _, button) = try showCustom(secondaryButton: false)
        view.process.send(##"redraw {"backgroundColor": "#993333FF", "primaryButtonBackgroundColor": "#2050C0"}"##)
        try view.waitForLine("ok redraw")
        let red = ScreenCapture.Pixel(hex: 0x993333)
        let blue = ScreenCapture.Pixel(hex: 0x2050C0)
        let capture = try capture(frame, when: "the new background and button") {
            $0.average(in: corner, isNear: red) && $0.band(of: blue) != nil
        }
        let newButton = try XCTUnwrap(capture.band(of: blue))
        XCTAssertEqual(newButton.y, button.y, accuracy: 40, "the same layout, new colors")
        XCTAssertEqual(connection.rootFrame(of: view.window), frame)
    }

    func testCoverFollowsANewFrame() throws {
        let (view, _, _) = try showCustom(secondaryButton: false)
        let moved = ScreenRect(x: 40, y: 30, width: 640, height: 420)
        view.process.send("cover \(moved)")
        try view.waitForLine("ok cover")
        try waitUntil("the shield at \(moved)") { self.connection.rootFrame(of: view.window) == moved }
        let corner = ScreenRect(x: moved.x + 10, y: moved.y + 10, width: 40, height: 40)
        let center = Double(moved.x + moved.width / 2)
        // The window lands first, the column is laid out again a frame later.
        let capture = try capture(moved, when: "the moved shield drawn, its column centered") {
            guard $0.average(in: corner, isNear: background), let band = $0.band(of: buttonBackground) else {
                return false
            }
            return abs(Double(band.x + band.width / 2) - center) <= 3
        }
        let button = try XCTUnwrap(capture.band(of: buttonBackground))
        XCTAssertEqual(
            Double(button.x + button.width / 2), Double(moved.x + moved.width / 2), accuracy: 3,
            "the column stays centered")
    }

    func testTheShieldRefusesToClose() throws {
        let (view, _, _) = try showCustom(secondaryButton: false)
        // The client's own close request, and the window manager's (which openbox turns into one).
        connection.sendDeleteWindow(to: view.window)
        connection.requestClose(of: view.window)
        connection.sync()
        // A redraw answered after the requests shows the program still serves the window.
        view.process.send(##"redraw {"backgroundColor": "#993333FF"}"##)
        try view.waitForLine("ok redraw")
        _ = try capture(frame, when: "the redrawn shield") {
            $0.average(in: corner, isNear: ScreenCapture.Pixel(hex: 0x993333))
        }
        XCTAssertTrue(connection.isMapped(view.window))
        XCTAssertTrue(view.process.isRunning)
        XCTAssertEqual(connection.rootFrame(of: view.window), frame)
    }

    func testTheProgramEndsCleanlyAtTheEndOfItsInput() throws {
        let view = try showShield(["--frame", frame.description], expecting: frame)
        view.process.closeInput()
        XCTAssertEqual(view.process.waitForExit(timeout: 10), 0)
        try waitUntil("the shield gone") { !self.connection.isMapped(view.window) }
    }

    func testABadConfigurationIsExplained() throws {
        let path = try configurationFile(#"{"backgroundColor": "teal"}"#)
        let process = try ChildProcess(
            try ProjectPrograms.url(of: "screenward-shieldview"),
            ["--display", session.display, "--configuration", path, "--frame", frame.description])
        XCTAssertNotEqual(process.waitForExit(timeout: 20), 0)
        XCTAssertTrue(process.standardError.contains("not a shield configuration"), process.standardError)
        XCTAssertTrue(process.standardError.contains("backgroundColor"), process.standardError)
    }
}
