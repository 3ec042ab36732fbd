import DeviceActivity
@_spi(Screenward) import FamilyControls
import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardCore
import ScreenwardIPC
import ScreenwardTesting
import SessionHarness
import TestSupport
import X11Session
import XCTest

/// Reports as people see them: the window's charts drawn on a real X server, the PNG's
/// pie in the categories' colours in proportion, and Worklog's pie chart drawn by its
/// report extension, which has no network.
final class ReportTests: XSessionTestCase {
    /// Three hours ago to now: the game 30 min, the notes 20 min, the chat 10 min.
    private func recordUse() throws -> (since: String, until: String) {
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let ledger = try Ledger(url: home.appendingPathComponent("ledger.sqlite"))
        let now = Date()
        let start = now.addingTimeInterval(-3 * 3600)
        let session = try ledger.beginAgentSession(pid: 1, display: ":0", at: start).sessionID
        var cursor = start.addingTimeInterval(600)
        for (id, categories, seconds) in [
            ("game.desktop", ["Game"], 1800.0), ("notes.desktop", ["Office"], 1200),
            ("chat.desktop", ["Network", "InstantMessaging"], 600),
        ] {
            let app = AppIdentity(
                key: .desktopEntry(id), displayName: id.replacingOccurrences(of: ".desktop", with: "").capitalized,
                categories: categories)
            let interval = try ledger.openInterval(
                sessionID: session, app: app, token: ApplicationToken(opaqueValue: "token-\(id)"), startingAt: cursor)
            try ledger.closeInterval(interval, duration: .seconds(seconds), reason: .idle)
            cursor = cursor.addingTimeInterval(seconds + 300)
        }
        try ledger.endAgentSession(session, at: cursor, reason: "test")
        let formatter = ISO8601DateFormatter()
        return (formatter.string(from: start), formatter.string(from: now))
    }

    private var environment: [String: String] { ["SCREENWARD_HOME": home.path, "SCREENWARD_REPORT_TRACE": "1"] }

    /// `pie X Y R` and the like, from the trace.
    private static func place(_ kind: String, in lines: [String]) throws -> [Int] {
        let line = try XCTUnwrap(lines.last { $0.hasPrefix("\(kind) ") }, "no \(kind) in \(lines)")
        return line.split(separator: " ").dropFirst().compactMap { Int($0) }
    }

    func testThePNGsPieHasTheCategoriesColoursInProportion() throws {
        let range = try recordUse()
        let png = temporary.appendingPathComponent("day.png")
        let output = try runProject(
            "screenward", ["report", "--png", png.path, "--since", range.since, "--until", range.until], environment)
        let pie = try Self.place("pie", in: output.components(separatedBy: "\n"))
        let image = try PortablePixmap(png: png)
        XCTAssertEqual(image.width, 960)
        // Around the pie at 60% of its radius: each category's share of the samples.
        var counts: [String: Int] = [:]
        let samples = 3600
        for step in 0..<samples {
            let angle = 2 * Double.pi * Double(step) / Double(samples)
            let radius = Double(pie[2]) * 0.6
            let pixel = image.pixel(
                x: pie[0] + Int((radius * cos(angle)).rounded()), y: pie[1] + Int((radius * sin(angle)).rounded()))
            for category in ["Game", "Office", "Social"]
            where pixel.isClose(to: ReportPalette.color(forCategory: category)) {
                counts[category, default: 0] += 1
            }
        }
        XCTAssertEqual(Double(counts["Game"] ?? 0) / Double(samples), 0.5, accuracy: 0.01, "\(counts)")
        XCTAssertEqual(Double(counts["Office"] ?? 0) / Double(samples), 1.0 / 3, accuracy: 0.01, "\(counts)")
        XCTAssertEqual(Double(counts["Social"] ?? 0) / Double(samples), 1.0 / 6, accuracy: 0.01, "\(counts)")
    }

    func testTheReportWindowOpensWithItsChartsDrawn() throws {
        let session = try startXSession()
        let range = try recordUse()
        let window = try ChildProcess(
            try ProjectPrograms.url(of: "screenward"), ["report", "--since", range.since, "--until", range.until],
            environment: environment.merging(["DISPLAY": session.display]) { $1 })
        defer { window.stop() }
        let deadline = Date().addingTimeInterval(15)
        while !window.outputLines.contains(where: { $0.hasPrefix("table ") }), Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
        }
        Thread.sleep(forTimeInterval: 0.3)  // the frame the trace described, on the screen
        let lines = window.outputLines
        let pie = try Self.place("pie", in: lines)
        let bars = try Self.place("bars", in: lines)
        let connection = try XConnection(displayName: session.display)
        let capture = try XCTUnwrap(
            ScreenCapture(connection: connection, region: ScreenRect(x: 0, y: 0, width: 1280, height: 1024)))
        // The pie: its quarter-radius ring is all category colours, none of it paper.
        let colours = ["Game", "Office", "Social"].map { ReportPalette.color(forCategory: $0) }
        var inPie = 0
        for step in 0..<360 {
            let angle = Double(step) * .pi / 180
            let pixel = capture.pixel(
                x: pie[0] + Int(Double(pie[2]) * 0.5 * cos(angle)), y: pie[1] + Int(Double(pie[2]) * 0.5 * sin(angle)))
            if colours.contains(where: { pixel.isClose(to: $0) }) { inPie += 1 }
        }
        XCTAssertGreaterThan(inPie, 350, "the pie is drawn in the categories' colours")
        // The bars: some of the plot is coloured.
        let plot = ScreenRect(x: bars[0], y: bars[1], width: bars[2], height: bars[3])
        var coloured = 0
        for x in stride(from: plot.x, to: plot.x + plot.width, by: 2) {
            for y in stride(from: plot.y, to: plot.y + plot.height, by: 2)
            where colours.contains(where: { capture.pixel(x: x, y: y).isClose(to: $0) }) {
                coloured += 1
            }
        }
        XCTAssertGreaterThan(coloured, 50, "bars are drawn")
        saveScreenshot(session, "report-day")
    }

    /// The open window follows the usage: it draws the report again (`--refresh`), with what
    /// was used since it opened.
    func testTheOpenWindowDrawsTheReportAgainWithNewUse() throws {
        let session = try startXSession()
        let range = try recordUse()
        let window = try ChildProcess(
            try ProjectPrograms.url(of: "screenward"), ["report", "--since", range.since, "--refresh", "1"],
            environment: environment.merging(["DISPLAY": session.display]) { $1 })
        defer { window.stop() }
        func waitUntil(_ what: String, _ condition: () -> Bool) throws {
            let deadline = Date().addingTimeInterval(15)
            while !condition() {
                guard Date() < deadline else { throw HarnessError.timedOut(what) }
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        try waitUntil("the first drawing") { window.outputLines.contains { $0.hasPrefix("table ") } }
        XCTAssertFalse(window.outputLines.contains { $0.contains("Paint") })

        // Ten minutes of a paint program, ending now.
        let ledger = try Ledger(url: home.appendingPathComponent("ledger.sqlite"))
        let now = Date()
        let agent = try ledger.beginAgentSession(pid: 2, display: ":0", at: now.addingTimeInterval(-600)).sessionID
        let paint = AppIdentity(key: .desktopEntry("paint.desktop"), displayName: "Paint", categories: ["Graphics"])
        let interval = try ledger.openInterval(
            sessionID: agent, app: paint, token: ApplicationToken(opaqueValue: "token-paint"),
            startingAt: now.addingTimeInterval(-600))
        try ledger.closeInterval(interval, duration: .seconds(600), reason: .idle)
        try ledger.endAgentSession(agent, at: now, reason: "test")

        try waitUntil("Paint in the report drawn again") {
            let lines = window.outputLines
            guard let refreshed = lines.firstIndex(of: "refreshed") else { return false }
            return lines[refreshed...].contains { $0.hasPrefix("text ") && $0.contains("Paint") }
        }
    }

    /// In a made-up language whose every text reads ⟦English⟧ (`PseudoLocale`), the report's
    /// window shows no other text: each went through the translations. In Korean and
    /// Vietnamese, none of the English render's texts is left.
    func testEveryTextOfTheReportGoesThroughTheTranslations() throws {
        let session = try startXSession()
        let range = try recordUse()
        func shownTexts(_ language: [String: String], screenshot name: String? = nil) throws -> [String] {
            let window = try ChildProcess(
                try ProjectPrograms.url(of: "screenward"), ["report", "--since", range.since, "--until", range.until],
                environment: environment.merging(["DISPLAY": session.display]) { $1 }.merging(language) { $1 })
            defer { window.stop() }
            let deadline = Date().addingTimeInterval(15)
            while !window.outputLines.contains(where: { $0.hasPrefix("table ") }), Date() < deadline {
                Thread.sleep(forTimeInterval: 0.05)
            }
            Thread.sleep(forTimeInterval: 0.3)
            if let name { screenshot(name, on: session.display) }
            return window.outputLines.filter { $0.hasPrefix("text ") }.map { String($0.dropFirst(5)) }
        }
        // The apps' names, and the names of days and months, which are the dates' (ICU's) to
        // write in each language, not the translations'.
        let calendar = DateFormatter()
        calendar.locale = Locale(identifier: PseudoLocale.language)
        let names = Set(["Game", "Notes", "Chat"]).union(
            calendar.weekdaySymbols + calendar.shortWeekdaySymbols + calendar.monthSymbols
                + calendar.shortMonthSymbols)
        let pseudo = try shownTexts(try PseudoLocale.environment())
        XCTAssertGreaterThan(pseudo.count, 10, "\(pseudo)")
        for text in pseudo {
            XCTAssertEqual(
                PseudoLocale.untranslated(in: text, data: names), "", "not through the translations: \(text)")
        }
        let english = try shownTexts(["LANG": "C.UTF-8"])
        for (language, locale) in [("ko", "ko_KR.UTF-8"), ("vi", "vi_VN.UTF-8")] {
            let shown = try shownTexts(["LANG": locale], screenshot: "report-\(language).png")
            XCTAssertEqual(shown.count, english.count, "\(language): \(shown)")
            for text in english where !PseudoLocale.untranslated(in: text, data: names).isEmpty {
                XCTAssertFalse(shown.contains(text), "\(language) shows the English \(text)")
            }
        }
    }

    func testWorklogsPieChartIsDrawnByItsExtensionWithoutNetwork() throws {
        let scene = try startShieldScene(extraEntries: [
            "chat.desktop":
                "[Desktop Entry]\nType=Application\nName=Chat\nExec=chat\nCategories=Network;InstantMessaging;\n"
        ])
        defer { scene.stop() }
        // Windows of both open for the whole test: the report's data is their use.
        let apps = try DemoApplications(display: scene.session.display, windows: ["game.Game", "chat.Chat"])
        defer { withExtendedLifetime(apps) {} }
        let environment = scene.agent.environment.merging(["SCREENWARD_REPORT_TRACE": "1"]) { $1 }
        XCTAssertTrue(try runProject("worklog", ["install"], environment).contains("report extension"))
        try scene.agent.allowAccess("org.example.worklog")
        _ = try runProject("worklog", ["setup"], environment)

        // Worklog shows its report: the window is the agent's (its child), and Worklog hears only
        // that it was closed.
        let display = scene.session.display
        let shown = try ChildProcess(try ProjectPrograms.url(of: "worklog"), ["report"], environment: environment)
        var window = ""
        let deadline = Date().addingTimeInterval(20)
        while window.isEmpty, shown.isRunning, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.1)
            window =
                (try? toolOutput("xdotool", ["search", "--classname", "^screenward-report$"], display: display))?
                .split(separator: "\n").first.map(String.init) ?? ""
        }
        guard !window.isEmpty else {
            let agentLog = scene.agent.process.standardError.suffix(2000)
            return XCTFail("no report window; worklog: \(shown.standardError); agent: \(agentLog)")
        }
        let windowPID = try toolOutput("xdotool", ["getwindowpid", window], display: display)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let stat = try String(contentsOfFile: "/proc/\(windowPID)/stat", encoding: .utf8)
        let parent = stat.split(separator: ")").last?.split(separator: " ").dropFirst(1).first.map(String.init)
        XCTAssertEqual(parent, "\(scene.agent.process.pid)", "the report window must be the agent's child")
        scene.wait("the agent to log the report", timeout: .seconds(10)) {
            scene.agent.process.standardError.contains("org.example.worklog's report extension drew \"Pie Chart\"")
        }
        screenshot("report-worklog-window.png", of: scene)
        // Closed as its title bar's close button does (the window manager asks it to close):
        // the shields over the game and the chat keep above, and a key may reach one of them.
        try runTool("wmctrl", ["-i", "-c", window], display: display)
        XCTAssertEqual(shown.waitForExit(timeout: 15), 0, shown.standardError)
        XCTAssertTrue(shown.outputLines.isEmpty, "Worklog was told nothing: \(shown.outputLines)")

        // A person draws it into a file with their own tool.
        let png = temporary.appendingPathComponent("worklog.png")
        let output = try runProject(
            "screenward", ["report", "--app", "org.example.worklog", "--context", "Pie Chart", "--png", png.path],
            environment)
        let pie = try Self.place("pie", in: output.components(separatedBy: "\n"))
        XCTAssertGreaterThan(pie[2], 20)
        XCTAssertTrue(FileManager.default.fileExists(atPath: png.path))
    }

    func testAReportExtensionHasNoNetwork() throws {
        _ = try startXSession()
        let listener = try LoopbackListener()
        defer { listener.stop() }
        // Outside the extension, the port answers.
        let probe = listener.probe
        let outside = try ChildProcess(URL(fileURLWithPath: "/bin/bash"), ["-c", probe], environment: [:])
        _ = outside.waitForExit(timeout: 10)
        XCTAssertEqual(outside.outputLines, ["reached"])

        let program = temporary.appendingPathComponent("netcheck")
        try Data(
            """
            #!/bin/bash
            cat > /dev/null
            echo "network: $(\(probe)); interfaces: \
            $(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | tr '\\n' ' ')" >&2
            echo '{"view":{"text":{"_0":"checked"}}}'
            """.utf8
        ).write(to: program)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: program.path)
        let dataHome = temporary.appendingPathComponent("data/screenward/apps", isDirectory: true)
        try FileManager.default.createDirectory(at: dataHome, withIntermediateDirectories: true)
        try Data(
            #"""
            {"format": 1, "bundleIdentifier": "org.test.netcheck", "displayName": "Net check", "extensions": \#
            [{"point": "device-activity-report", "executable": "\#(program.path)"}]}
            """#
            .utf8
        )
        .write(to: dataHome.appendingPathComponent("org.test.netcheck.json"))
        let session = try startXSession()
        var environment = try catalogEnvironment(entries: [:])
        environment["XDG_DATA_HOME"] = temporary.appendingPathComponent("data").path
        let agent = try AgentRun(display: session.display, home: home, environment: environment)
        defer { _ = agent.stop() }
        // The app must be authorised for its extension to get usage.
        let client = ServiceClient(
            transport: SocketTransport(path: agent.home.appendingPathComponent("agent.sock").path),
            bundleIdentifier: "org.test.netcheck")
        try agent.allowAccess("org.test.netcheck")
        _ = try client.call(AuthorizationMethods.request, .individual)
        let png = temporary.appendingPathComponent("net.png")
        _ = try agent.cli(["report", "--app", "org.test.netcheck", "--context", "any", "--png", png.path])
        let deadline2 = Date().addingTimeInterval(5)
        while !agent.process.standardError.contains("network: "), Date() < deadline2 {
            Thread.sleep(forTimeInterval: 0.05)
        }
        let log = agent.process.standardError
        XCTAssertTrue(log.contains("network: unreachable; interfaces: lo "), log)
        XCTAssertTrue(FileManager.default.fileExists(atPath: png.path))
    }

    private func saveScreenshot(_ session: PrivateXSession, _ name: String) {
        guard let folder = ProcessInfo.processInfo.environment["SCREENWARD_SCREENSHOTS"] else { return }
        let shot = try? ChildProcess(
            URL(fileURLWithPath: "/usr/bin/import"), ["-window", "root", "\(folder)/\(name).png"],
            environment: ["DISPLAY": session.display])
        _ = shot?.waitForExit(timeout: 10)
    }
}

/// A PNG read through ImageMagick as a binary PPM (P6).
struct PortablePixmap {
    let width: Int
    let height: Int
    private let bytes: [UInt8]
    private let offset: Int

    init(png: URL) throws {
        let convert = Process()
        convert.executableURL = URL(fileURLWithPath: "/usr/bin/convert")
        convert.arguments = [png.path, "ppm:-"]
        let output = Pipe()
        convert.standardOutput = output
        try convert.run()
        let data = [UInt8](output.fileHandleForReading.readDataToEndOfFile())
        convert.waitUntilExit()
        guard convert.terminationStatus == 0 else {
            throw HarnessError.failed("convert \(png.path) exited \(convert.terminationStatus)")
        }
        // "P6\n<width> <height>\n255\n" then the pixels.
        var fields: [String] = []
        var index = 0
        var current = ""
        while fields.count < 4, index < data.count {
            let byte = data[index]
            if byte == 0x20 || byte == 0x0A {
                if !current.isEmpty { fields.append(current) }
                current = ""
            } else {
                current.append(Character(UnicodeScalar(byte)))
            }
            index += 1
        }
        guard fields.count == 4, fields[0] == "P6", let width = Int(fields[1]), let height = Int(fields[2]) else {
            throw HarnessError.failed("not a PPM: \(fields)")
        }
        self.width = width
        self.height = height
        bytes = data
        offset = index
    }

    func pixel(x: Int, y: Int) -> ScreenCapture.Pixel {
        let at = offset + (y * width + x) * 3
        return ScreenCapture.Pixel(red: bytes[at], green: bytes[at + 1], blue: bytes[at + 2])
    }
}

extension ScreenCapture.Pixel {
    func isClose(to color: ReportColor) -> Bool {
        distance(
            to: ScreenCapture.Pixel(
                red: UInt8(color.red * 255 + 0.5), green: UInt8(color.green * 255 + 0.5),
                blue: UInt8(color.blue * 255 + 0.5))) <= 6
    }
}
