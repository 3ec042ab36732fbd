import Foundation
import ScreenwardCore
import ScreenwardTesting
import SessionDisplay
import SessionHarness
import TestSupport
import X11Session
import XCTest

/// Tests of the shield window. GTK starts once per process, so each test drives the
/// real `screenward-shieldview` in its own Xvfb + openbox and reads the screen back.
/// Outside CI they skip when Xvfb or openbox is missing; in CI they must run.
class ShieldUITestCase: XCTestCase {
    var temporary: URL!
    var session: PrivateXSession!
    var connection: XConnection!

    override func setUpWithError() throws {
        _ = try requireProgram("Xvfb", package: "xvfb")
        _ = try requireProgram("openbox", package: "openbox")
        temporary = FileManager.default.temporaryDirectory.appendingPathComponent(
            "screenward-shield-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        session = try PrivateXSession(windowManager: true)
        connection = try XConnection(displayName: session.display)
    }

    override func tearDownWithError() throws {
        connection = nil
        session?.stop()
        session = nil
        if let temporary { try? FileManager.default.removeItem(at: temporary) }
    }

    /// Writes a ShieldConfiguration JSON file; returns its path.
    func configurationFile(_ json: String) throws -> String {
        let url = temporary.appendingPathComponent("configuration-\(UUID().uuidString).json")
        try json.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    /// Starts screenward-shieldview and waits until its shield is on the screen, where asked.
    func showShield(_ arguments: [String], expecting frame: ScreenRect? = nil) throws -> ShieldView {
        let view = try ShieldView(display: session.display, arguments: ["--language", "en"] + arguments)
        if let frame {
            try waitUntil("the shield at \(frame)") { self.connection.rootFrame(of: view.window) == frame }
        }
        return view
    }

    /// Polls `condition` until it holds; fails the test after `timeout`.
    func waitUntil(_ what: String, timeout: TimeInterval = 15, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            if Date() > deadline { throw HarnessError.timedOut(what) }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// A capture of `frame` once `condition` holds on it (what is drawn settles after the map).
    func capture(_ frame: ScreenRect, when what: String, _ condition: (ScreenCapture) -> Bool) throws -> ScreenCapture {
        var last: ScreenCapture?
        try waitUntil(what) {
            last = ScreenCapture(connection: connection, region: frame)
            return last.map(condition) ?? false
        }
        return last!
    }

    /// Runs xdotool with `arguments` on the test's display.
    func xdotool(_ arguments: [String]) throws {
        let program = try requireProgram("xdotool", package: "xdotool")
        let process = try ChildProcess(program, arguments, environment: ["DISPLAY": session.display])
        guard process.waitForExit(timeout: 20) == 0 else {
            throw HarnessError.failed("xdotool \(arguments) failed: \(process.standardError)")
        }
    }
}

/// A running screenward-shieldview and its shield window.
final class ShieldView {
    let process: ChildProcess
    let window: WindowID
    /// Whether the desktop's GTK theme styles the window (its first line: `theme desktop`).
    let desktopTheme: Bool

    init(display: String, arguments: [String], environment: [String: String] = [:]) throws {
        process = try ChildProcess(
            try ProjectPrograms.url(of: "screenward-shieldview"), ["--display", display] + arguments,
            environment: environment)
        let lines = try process.waitForOutputLines(2, timeout: 30)
        let (theme, shown) = (lines[0], lines[1])
        guard ["theme own", "theme desktop"].contains(theme), shown.hasPrefix("shown 0x"),
            let id = UInt(shown.dropFirst("shown 0x".count), radix: 16)
        else {
            throw HarnessError.failed(
                """
                screenward-shieldview printed \(lines) instead of \"theme own|desktop\", \"shown 0x…\"; stderr: \
                \(process.standardError)
                """)
        }
        desktopTheme = theme == "theme desktop"
        window = WindowID(id)
    }

    deinit {
        process.closeInput()
        process.stop()
    }

    /// The texts the shield shows (the program prints them once it is shown).
    var texts: [String] {
        process.outputLines.filter { $0.hasPrefix("text ") }.map { String($0.dropFirst(5)) }
    }

    /// Waits until the program has printed `line`.
    func waitForLine(_ line: String, timeout: TimeInterval = 15) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !process.outputLines.contains(line) {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else {
                throw HarnessError.timedOut("no \"\(line)\" from screenward-shieldview; got \(process.outputLines)")
            }
            _ = try? process.waitForOutputLines(process.outputLines.count + 1, timeout: remaining)
        }
    }
}

extension ScreenCapture.Pixel {
    init(hex: UInt32) {
        self.init(red: UInt8(hex >> 16 & 0xFF), green: UInt8(hex >> 8 & 0xFF), blue: UInt8(hex & 0xFF))
    }
}

extension ScreenCapture {
    /// The bounding box of the widest band of rows in which at least `minimumPerRow`
    /// pixels are within `tolerance` of `color`: how a test finds a button without
    /// knowing the layout.
    func band(of color: Pixel, tolerance: Int = 12, minimumPerRow: Int = 80) -> ScreenRect? {
        var best: ScreenRect?
        var current: (top: Int, left: Int, right: Int)?
        func close(at bottom: Int) {
            if let band = current {
                let rect = ScreenRect(
                    x: band.left, y: band.top, width: band.right - band.left + 1, height: bottom - band.top)
                if rect.height > (best?.height ?? 0) { best = rect }
            }
            current = nil
        }
        for y in region.y..<(region.y + region.height) {
            var count = 0
            var left = Int.max
            var right = Int.min
            for x in region.x..<(region.x + region.width) where pixel(x: x, y: y).distance(to: color) <= tolerance {
                count += 1
                left = min(left, x)
                right = max(right, x)
            }
            if count >= minimumPerRow {
                current = current.map { ($0.top, min($0.left, left), max($0.right, right)) } ?? (y, left, right)
            } else {
                close(at: y)
            }
        }
        close(at: region.y + region.height)
        return best
    }

    /// How many pixels of `area` are within `tolerance` of `color`.
    func count(of color: Pixel, in area: ScreenRect, tolerance: Int = 40) -> Int {
        var count = 0
        for y in max(area.y, region.y)..<min(area.y + area.height, region.y + region.height) {
            for x in max(area.x, region.x)..<min(area.x + area.width, region.x + region.width)
            where pixel(x: x, y: y).distance(to: color) <= tolerance {
                count += 1
            }
        }
        return count
    }

    /// Whether the mean color of `area` is within `tolerance` of `color` in every channel.
    func average(in area: ScreenRect, isNear color: Pixel, tolerance: Double = 4) -> Bool {
        guard let mean = averageColor(in: area) else { return false }
        return abs(mean.red - Double(color.red)) <= tolerance && abs(mean.green - Double(color.green)) <= tolerance
            && abs(mean.blue - Double(color.blue)) <= tolerance
    }
}
