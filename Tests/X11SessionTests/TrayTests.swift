import Foundation
import ScreenwardTesting
import SessionHarness
import TestSupport
import X11Session
import XCTest

/// `screenward-tray` in a real XEmbed tray (trayer) under Xvfb + openbox, with the real
/// agent: its icon is embedded, its menu opens on a real click and an item does what it says.
final class TrayTests: XSessionTestCase {
    /// Daily limits used up within the test: one day's use.
    override func setUpWithError() throws {
        try super.setUpWithError()
        startWithinOneDay(lasting: 60)
    }

    func testTheTrayMenuShowsTheRulesAndGivesFifteenMoreMinutesByRealClicks() throws {
        let trayer = try requireTool("trayer")
        let scene = try startShieldScene()
        defer { scene.stop() }
        let display = scene.session.display
        let host = try ChildProcess(trayer, TrayTrace.trayerArguments, environment: ["DISPLAY": display])
        defer { host.stop() }
        let apps = try DemoApplications(display: display, windows: ["game.Game", "notes.Notes"])
        let game = id(apps.windows[0])
        _ = try scene.agent.cli(["limit", "add", "Games", "--app", "game.desktop", "--daily", "1s"])
        // A downtime that has not started: from two hours from now to three (any hour of the day).
        let now = Date()
        let (from, to) = (
            Self.hourAndMinute(now.addingTimeInterval(2 * 3600)), Self.hourAndMinute(now.addingTimeInterval(3 * 3600))
        )
        _ = try scene.agent.cli(["downtime", "add", "Bedtime", "--from", from, "--to", to])
        scene.connection.requestActivation(of: game)
        let shield = try scene.shield(over: game)

        // The agent's environment: its catalog is the test's alone, over the machine's shared
        // data (the MIME database GTK's image loading relies on), as in any session.
        let tray = try ChildProcess(
            try ProjectPrograms.url(of: "screenward-tray"), ["--refresh", "1"],
            environment: scene.agent.environment.merging(["SCREENWARD_TRAY_TRACE": "1"]) { $1 })
        defer { tray.stop() }
        _ = try tray.waitForOutputLines(1, timeout: 15)
        XCTAssertEqual(tray.outputLines.first, "screenward-tray: showing your own rules (your agent)")

        // The icon, embedded in the tray: a real click opens the menu.
        var icon = ""
        let embedded = scene.wait("the icon in the tray", timeout: .seconds(10)) {
            icon =
                (try? toolOutput("xdotool", ["search", "--name", "^Screen time$"], display: display))?.split(
                    separator: "\n"
                ).first.map(String.init) ?? ""
            return !icon.isEmpty
        }
        guard embedded else {
            return XCTFail(
                """
                tray: \(tray.standardError.suffix(2000)); windows: \
                \((try? toolOutput("xwininfo", ["-root", "-tree"], display: display)) ?? "")
                """
            )
        }
        let geometry = try toolOutput("xdotool", ["getwindowgeometry", "--shell", icon], display: display)
        func value(_ key: String) -> Int {
            Int(geometry.split(separator: "\n").first { $0.hasPrefix("\(key)=") }?.dropFirst(key.count + 1) ?? "") ?? 0
        }
        XCTAssertLessThanOrEqual(value("HEIGHT"), 40, "a tray icon, not a window: \(geometry)")
        func place(of label: String) -> (x: Int, y: Int)? { TrayTrace.place(of: label, in: tray.outputLines) }
        scene.wait("the menu to know the limit is used up", timeout: .seconds(10)) {
            try? runTool("xdotool", ["mousemove", "--window", icon, "8", "8", "click", "1"], display: display)
            scene.loop.iterate(until: { false }, timeout: .milliseconds(500))
            if place(of: "15 more minutes: Games") != nil { return true }
            try? runTool("xdotool", ["key", "Escape"], display: display)
            return false
        }
        XCTAssertNotNil(place(of: "Games: used up until 00:00"), "\(tray.outputLines)")
        XCTAssertNotNil(place(of: "Bedtime: downtime \(from)–\(to)"), "\(tray.outputLines)")
        screenshot("tray-own-menu.png", of: scene)

        // A real click on "15 more minutes: Games": the shield lifts.
        let (x, y) = try XCTUnwrap(place(of: "15 more minutes: Games"))
        try runTool("xdotool", ["mousemove", "\(x)", "\(y)", "click", "1"], display: display)
        scene.wait("the shield lifted by the tray's 15 minutes", timeout: .seconds(10)) {
            scene.watcher.windows[shield]?.isViewable != true
        }
        XCTAssertTrue(try scene.agent.cli(["status"]).contains("with 15m 00s extra"))
    }

    /// In a made-up language whose every text reads ⟦English⟧ (`PseudoLocale`), the tray's
    /// menu shows no other text but the rules' names; in Korean and Vietnamese none of the
    /// English menu's texts is left.
    func testEveryTextOfTheTrayMenuGoesThroughTheTranslations() throws {
        let trayer = try requireTool("trayer")
        let scene = try startShieldScene()
        defer { scene.stop() }
        let display = scene.session.display
        let host = try ChildProcess(trayer, TrayTrace.trayerArguments, environment: ["DISPLAY": display])
        defer { host.stop() }
        _ = try scene.agent.cli(["limit", "add", "Games", "--app", "game.desktop", "--daily", "1h"])
        let now = Date()
        _ = try scene.agent.cli([
            "downtime", "add", "Bedtime", "--from", Self.hourAndMinute(now.addingTimeInterval(2 * 3600)), "--to",
            Self.hourAndMinute(now.addingTimeInterval(3 * 3600)),
        ])
        /// The menu's labels, once it is open (a real click on the icon, titled `title`).
        func menu(_ language: [String: String], title: String, screenshot name: String? = nil) throws -> [String] {
            let tray = try ChildProcess(
                try ProjectPrograms.url(of: "screenward-tray"), ["--refresh", "1"],
                environment: scene.agent.environment.merging(["SCREENWARD_TRAY_TRACE": "1"]) { $1 }
                    .merging(language) { $1 })
            defer { tray.stop() }
            // The icon's window, by its class; its name (UTF-8, which xdotool's search does not
            // read) is the title in the tray's language.
            var icon = ""
            let embedded = scene.wait("the icon titled \(title) in the tray", timeout: .seconds(10)) {
                icon =
                    (try? toolOutput("xdotool", ["search", "--classname", "^screenward$"], display: display))?.split(
                        separator: "\n"
                    ).first.map(String.init) ?? ""
                guard !icon.isEmpty,
                    let name = try? toolOutput("xprop", ["-id", icon, "_NET_WM_NAME"], display: display)
                else { return false }
                return name.contains("= \"\(title)\"")
            }
            guard embedded else { throw HarnessError.failed("no tray icon titled \(title): \(tray.standardError)") }
            let opened = scene.wait("the menu", timeout: .seconds(10)) {
                try? runTool("xdotool", ["mousemove", "--window", icon, "8", "8", "click", "1"], display: display)
                scene.loop.iterate(until: { false }, timeout: .milliseconds(500))
                if tray.outputLines.contains(where: { $0.hasPrefix("menu item: ") }) { return true }
                try? runTool("xdotool", ["key", "Escape"], display: display)
                return false
            }
            guard opened else { throw HarnessError.failed("the tray's menu did not open: \(tray.outputLines)") }
            if let name { screenshot(name, of: scene) }
            try? runTool("xdotool", ["key", "Escape"], display: display)
            return tray.outputLines.compactMap { line in
                guard line.hasPrefix("menu item: "), let at = line.range(of: " at ", options: .backwards) else {
                    return nil
                }
                return String(line[line.index(line.startIndex, offsetBy: 11)..<at.lowerBound])
            }
        }
        let names: Set = ["Games", "Bedtime"]
        let pseudo = try menu(try PseudoLocale.environment(), title: "⟦Screen time⟧")
        XCTAssertGreaterThanOrEqual(pseudo.count, 3, "\(pseudo)")
        for text in pseudo {
            XCTAssertEqual(
                PseudoLocale.untranslated(in: text, data: names), "", "not through the translations: \(text)")
        }
        let english = try menu(["LANG": "C.UTF-8"], title: "Screen time")
        for (language, locale) in [("ko", "ko_KR.UTF-8"), ("vi", "vi_VN.UTF-8")] {
            let title = try TranslationCatalogs.compiled(language)("Screen time", context: "trayTitle")
            let shown = try menu(["LANG": locale], title: title, screenshot: "tray-menu-\(language).png")
            XCTAssertEqual(shown.count, english.count, "\(language): \(shown)")
            for text in english where !PseudoLocale.untranslated(in: text, data: names).isEmpty {
                XCTAssertFalse(shown.contains(text), "\(language) shows the English \(text)")
            }
        }
    }
}
