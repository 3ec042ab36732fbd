import Foundation
import SessionHarness
import TestSupport
import XCTest

/// A guardian's own desktop for the tests: root's X server, a real XEmbed tray (trayer), a
/// notification daemon (dunst, printing what it shows) on a private bus, and the guardian's
/// `screenward-tray` tracing where its menu items are, so a test clicks them as a person would.
final class GuardianTrayDesk {
    private let session: PrivateXSession
    private let host: ChildProcess
    private let bus: PrivateDBus
    private let dunst: ChildProcess
    let tray: ChildProcess
    private let desktop: ManagedDesktop
    private var icon = ""

    init(for desktop: ManagedDesktop) throws {
        let trayer = try requireProgram("trayer", package: "trayer")
        let dunstProgram = try requireProgram("dunst", package: "dunst")
        self.desktop = desktop
        session = try PrivateXSession(screen: "1024x600x24")
        host = try ChildProcess(trayer, TrayTrace.trayerArguments, environment: ["DISPLAY": session.display])
        bus = try PrivateDBus()
        dunst = try ChildProcess(
            dunstProgram, ["-print"],
            environment: ["DISPLAY": session.display, "DBUS_SESSION_BUS_ADDRESS": bus.address])
        tray = try ChildProcess(
            try ProjectPrograms.url(of: "screenward-tray"), ["--refresh", "1"],
            environment: [
                "DISPLAY": session.display, "SCREENWARD_DAEMON_SOCKET": desktop.fixture.socket,
                "SCREENWARD_TRAY_TRACE": "1", "XDG_DATA_DIRS": "/usr/local/share:/usr/share",
                "DBUS_SESSION_BUS_ADDRESS": bus.address, "HOME": "/root",
            ])
        XCTAssertEqual(
            try tray.waitForOutputLines(1, timeout: 15).first,
            "screenward-tray: showing the managed users (the system daemon)")
        try desktop.waitFor("the tray's icon") {
            icon =
                try xdotool(["search", "--name", "^Screen time$"]).split(separator: "\n").first.map(String.init) ?? ""
            return !icon.isEmpty
        }
    }

    func stop() {
        tray.stop()
        dunst.stop()
        host.stop()
        session.stop()
    }

    /// Waits for a notification whose summary is `summary`.
    func waitForNotification(_ summary: String) throws {
        try desktop.waitFor("the notification \"\(summary)\"", timeout: 20) {
            dunst.outputLines.contains("\tsummary: '\(summary)'")
        }
    }

    @discardableResult
    func xdotool(_ arguments: [String]) throws -> String {
        let child = try ChildProcess(
            URL(fileURLWithPath: "/usr/bin/xdotool"), arguments, environment: ["DISPLAY": session.display])
        _ = child.waitForExit(timeout: 10)
        return child.outputLines.joined(separator: "\n")
    }

    func place(of label: String) -> (x: Int, y: Int)? { TrayTrace.place(of: label, in: tray.outputLines) }

    /// Opens the menu until it shows `label` (it refreshes every second), then its submenu,
    /// until `item` shows there; returns the submenu item's place.
    func openSubmenu(_ label: String, showing item: String) throws -> (x: Int, y: Int) {
        try desktop.waitFor("\"\(label)\" in the menu", timeout: 20) {
            try xdotool(["mousemove", "--window", icon, "8", "8", "click", "1"])
            Thread.sleep(forTimeInterval: 0.5)
            if place(of: label) != nil { return true }
            try xdotool(["key", "Escape"])
            return false
        }
        let (x, y) = try XCTUnwrap(place(of: label))
        try xdotool(["mousemove", "\(x)", "\(y)", "click", "1"])
        try desktop.waitFor("the submenu") { place(of: item) != nil }
        try xdotool(["mousemove", "\(x + 40)", "\(y)"])
        Thread.sleep(forTimeInterval: 0.3)
        return try XCTUnwrap(place(of: item))
    }

    func click(at place: (x: Int, y: Int)) throws {
        try xdotool(["mousemove", "\(place.x)", "\(place.y)", "click", "1"])
    }

    /// The whole screen, into `$SCREENWARD_SCREENSHOTS/name` (or the temporary folder).
    func screenshot(_ name: String) throws {
        let path =
            ProcessInfo.processInfo.environment["SCREENWARD_SCREENSHOTS"].map {
                URL(fileURLWithPath: $0).appendingPathComponent(name).path
            } ?? FileManager.default.temporaryDirectory.appendingPathComponent(name).path
        _ = try ChildProcess(
            URL(fileURLWithPath: "/usr/bin/import"), ["-window", "root", path],
            environment: ["DISPLAY": session.display]
        ).waitForExit(timeout: 10)
    }
}
