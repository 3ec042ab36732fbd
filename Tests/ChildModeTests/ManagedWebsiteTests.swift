import Foundation
import Glibc
import ScreenwardCore
import SessionHarness
import TestSupport
import XCTest

/// A managed child's websites, in Debian's real Chromium run by the child (a real user) in
/// their own X session: the daemon takes the reports of the host the browser starts only
/// after vetting it, counts the child's time per website, shields a website a guardian
/// limits, and refuses (and records) what a child's script claims in the host's name.
final class ManagedWebsiteTests: XCTestCase {
    private var desktop: ManagedDesktop!
    private var rig: BrowserRig?
    private var fixture: DaemonFixture { desktop.fixture }

    override func setUpWithError() throws {
        try ManagedDesktop.requirements()
        if let missing = BrowserRig.missingRequirement() { try cannotRun(missing) }
    }

    /// The child's desktop with `windows` (screenward-testwindow's), the system's
    /// applications `applications` and the browsers ready.
    private func start(
        windows: [String] = ["game.Game:Game"], applications: (DaemonFixture) -> [String: String] = { _ in [:] }
    ) throws -> BrowserRig {
        let fixture = try DaemonFixture()
        // Chromium is one of the system's applications (the daemon sees none unless told).
        fixture.machineApplications = ["chromium.desktop"]
        fixture.testApplications = applications(fixture)
        desktop = try ManagedDesktop(fixture: fixture, windows: windows)
        // The browsers start the daemon's copy of the host (root's, as installed).
        let rig = try BrowserRig(
            temporary: fixture.work, host: URL(fileURLWithPath: fixture.program("screenward-web-host")))
        rig.xAuthority = desktop.authority
        self.rig = rig
        return rig
    }

    override func tearDown() {
        rig?.remove()
        desktop?.tearDown()
    }

    /// The managed child's session, and their Chromium on the wiki page, its extension's report
    /// in: its start was covered while the extension loaded, and the report lifted the cover.
    private func startChildsChromium(_ rig: BrowserRig, xdotool: URL) throws -> (ChildProcess, window: String) {
        try desktop.startManagedSession()
        let chromium = try desktop.startAsKid(
            try BrowserRig.chromiumCommand(
                profile: "/home/\(desktop.kid)/chromium", urls: ["http://en.wiki.test:\(rig.port)/wiki.html"]))
        let window = try rig.window(
            titled: "Wiki page - Chromium", display: desktop.display, xdotool: xdotool, or: chromium)
        try desktop.waitFor("the child's browser's host to connect", timeout: 60) {
            rig.hostLines.contains("is connected")
        }
        try desktop.waitFor("the cover lifted by the extension's report", timeout: 10) {
            self.desktop.lastCoverReport()?.count == 0
        }
        XCTAssertTrue(
            fixture.daemon?.standardError.contains("1 window(s) covered (browser-checking)") ?? false,
            "Chromium's start was not covered")
        return (chromium, window)
    }

    func testTheDaemonCountsAndLimitsAChildsWebsitesAndRefusesAForgedHost() throws {
        let rig = try start()
        let xdotool = try requireProgram("xdotool", package: "xdotool")
        let (chromium, window) = try startChildsChromium(rig, xdotool: xdotool)
        let kid = desktop.kid
        XCTAssertEqual(try desktop.runAsKid(["xdotool", "windowactivate", window]).status, 0)

        // The child's time on the website is counted by the daemon, under the browser.
        try desktop.waitFor("time on wiki.test", timeout: 30) { try self.websiteSeconds()["wiki.test"] ?? 0 >= 2 }
        XCTAssertFalse(rig.hostLines.contains("refused"), rig.hostLines)

        // A guardian limits a website to 2 s a day: once used up, the tab shows the rules' shield page.
        let added = try fixture.screenward(
            as: "root", ["limit", "add", "Videos", "--site", "videos.test", "--daily", "2s", "--user", kid])
        XCTAssertEqual(added.status, 0, added.error)
        try rig.navigate(
            window, to: "http://www.videos.test:\(rig.port)/video.html", display: desktop.display, xdotool: xdotool)
        _ = try rig.window(
            titled: "videos.test (restricted) - Chromium", display: desktop.display, xdotool: xdotool, or: chromium)
        let said = "web shield: the look for videos.test: \"Time's up: Videos\""
        try desktop.waitFor("the rules' look for the page", timeout: 10) {
            self.fixture.daemon?.standardError.contains(said) ?? false
        }
        XCTAssertEqual(try websiteSeconds()["videos.test"] ?? 0, 2, accuracy: 1)

        // "Ask for more time" on the page: the request reaches the guardians, the page says it
        // waits, and once a guardian approves the tab has its page back.
        try rig.pressSecondaryButton(in: window, display: desktop.display, xdotool: xdotool)
        try desktop.waitFor("the child's request", timeout: 15) {
            (try? self.fixture.screenward(as: "root", ["request", "list"]).output.contains(
                "\(kid)/1  videos.test on Videos")) == true
        }
        let waiting = "web shield: the look for videos.test: \"Time's up: Videos\""
        try desktop.waitFor("the page redrawn as waiting", timeout: 10) {
            (self.fixture.daemon?.standardError.components(separatedBy: waiting).count ?? 0) > 2
        }
        desktop.screenshot("managed-web-shield.png")
        let approved = try fixture.screenward(as: "root", ["request", "approve", "\(kid)/1", "--seconds", "60"])
        XCTAssertEqual(approved.status, 0, approved.error)
        _ = try rig.window(titled: "Video page - Chromium", display: desktop.display, xdotool: xdotool, or: chromium)

        // A child's script speaks as the host: refused, recorded, and nothing counted.
        let claim =
            #"{"kind":"windows","focused":1,"windows":[{"id":1,"incognito":false,"#
            + #""tab":{"url":"https://en.wiki.test/","title":"Wiki page"}}]}"#
        let copy = "/home/\(kid)/host"
        XCTAssertEqual(try desktop.runAsKid(["cp", fixture.program("screenward-web-host"), copy]).status, 0)
        let attempts: [(what: String, command: [String], refusal: String)] = [
            (
                "the installed host started from a shell", [fixture.program("screenward-web-host")],
                "which is not a browser Screenward supports"
            ),
            ("a copy of the host", [copy], "which is not one of org.screenward.web-host's installed executables"),
            (
                "the host with LD_PRELOAD",
                ["env", "LD_PRELOAD=/lib/x86_64-linux-gnu/libm.so.6", fixture.program("screenward-web-host")],
                "was started with LD_PRELOAD set"
            ),
        ]
        let before = try websiteSeconds()
        for attempt in attempts {
            let forged = try desktop.runAsKid([
                "sh", "-c",
                """
                \(Self.framing(claim)) | \(attempt.command.map { "'\($0)'" }.joined(separator: " ")) \
                chrome-extension://forged/
                """,
            ])
            XCTAssertTrue(forged.error.contains("refused"), "\(attempt.what): \(forged.error)")
            XCTAssertTrue(forged.error.contains(attempt.refusal), "\(attempt.what): \(forged.error)")
        }
        let events = try fixture.screenward(as: "root", ["child", "events", kid]).output
        for attempt in attempts {
            XCTAssertTrue(events.contains(attempt.refusal), "\(attempt.what) is not in the record: \(events)")
        }
        XCTAssertEqual(
            try websiteSeconds()["wiki.test"] ?? 0, before["wiki.test"] ?? 0, accuracy: 0.01, "a forged report counted")
        // The browser the extension reports for was never taken for an unsupported one.
        XCTAssertFalse(events.contains("unsupported-browser"), events)
    }

    /// The child kills their browser's host: the browser's windows are covered at once (no
    /// report names it), and given back when its extension has started a host again and it
    /// reports. The third time within a minute the browser is shielded as not supported at
    /// once (held, so it stays so), and recorded.
    func testAKilledHostLeavesTheBrowserCoveredUntilItsExtensionReportsAgain() throws {
        let rig = try start()
        let xdotool = try requireProgram("xdotool", package: "xdotool")
        let (_, window) = try startChildsChromium(rig, xdotool: xdotool)
        let kid = desktop.kid
        XCTAssertEqual(try desktop.runAsKid(["xdotool", "windowactivate", window]).status, 0)
        // The positive control: the host runs, and nothing covers the browser.
        XCTAssertEqual(try desktop.runAsKid(["pgrep", "-u", kid, "-f", "screenward-web-host"]).status, 0)
        func killHost(_ round: Int) throws -> Date {
            let killed = try desktop.runAsKid(["pkill", "-KILL", "-u", kid, "-f", "screenward-web-host"])
            XCTAssertEqual(killed.status, 0, "round \(round): no host to kill: \(killed.error)")
            return Date()
        }
        for round in 1..<UnsupportedBrowsers.lossesBeforeShield {
            let killed = try killHost(round)
            try desktop.waitFor("round \(round): the browser covered once its host is gone", timeout: 5) {
                self.desktop.lastCoverReport().map { $0.count == 1 && $0.stores == "browser-checking" } ?? false
            }
            XCTAssertLessThan(Date().timeIntervalSince(killed), 1, "round \(round): covered late")
            // The extension starts a host again a second later, which reports: the page is back.
            try desktop.waitFor("round \(round): the cover lifted by the new host's report", timeout: 10) {
                self.desktop.lastCoverReport()?.count == 0
            }
        }
        // Killed once more within the minute: shielded as not supported at once, and recorded.
        // Held as such, the browser starts no host again: it stays shielded until it is closed.
        let killed = try killHost(UnsupportedBrowsers.lossesBeforeShield)
        try desktop.waitFor("the shield over the browser whose host keeps ending", timeout: 5) {
            self.desktop.lastCoverReport().map { $0.count == 1 && $0.stores == "unsupported-browser" } ?? false
        }
        XCTAssertLessThan(Date().timeIntervalSince(killed), 1, "shielded late")
        let events = try fixture.screenward(as: "root", ["child", "events", kid]).output
        XCTAssertTrue(events.contains("unsupported-browser"), events)
        Thread.sleep(forTimeInterval: 3)
        XCTAssertEqual(desktop.lastCoverReport()?.stores, "unsupported-browser", "given back its page")
    }

    /// Failing closed: a program whose desktop entry says it is a web browser, and that cannot
    /// run Screenward's extension, is shielded as not supported within 2 s of having the
    /// focus, and recorded; Chromium started with its extensions off is shielded too.
    func testABrowserNoExtensionReportsForIsShieldedAsNotSupported() throws {
        let rig = try start(
            windows: ["rogue.Rogue:Rogue page"],
            applications: { fixture in
                [
                    "rogue-browser.desktop":
                        "[Desktop Entry]\nType=Application\nName=Rogue Browser\n"
                        + "Exec=\(fixture.program("screenward-testwindow"))\nCategories=Network;WebBrowser;\n"
                ]
            })
        let xdotool = try requireProgram("xdotool", package: "xdotool")
        try desktop.startManagedSession()
        XCTAssertEqual(try desktop.runAsKid(["xdotool", "windowactivate", desktop.windows[0]]).status, 0)
        let focused = Date()
        try desktop.waitFor("the shield over the unsupported browser", timeout: 10) {
            self.desktop.lastCoverReport().map { $0.count == 1 && $0.stores == "unsupported-browser" } ?? false
        }
        // It was covered meanwhile, as it was checked.
        XCTAssertTrue(fixture.daemon?.standardError.contains("1 window(s) covered (browser-checking)") ?? false)
        XCTAssertLessThan(Date().timeIntervalSince(focused), 3, "shielded within 2 s (and the daemon's word)")
        desktop.screenshot("managed-unsupported-browser.png")
        let events = try fixture.screenward(as: "root", ["child", "events", desktop.kid]).output
        XCTAssertTrue(events.contains("unsupported-browser"), events)
        XCTAssertTrue(events.contains("Rogue Browser"), events)

        // Chromium with its extensions turned off by the child: no report. Its window is covered
        // from its start (its page never shows), then shielded as not supported once the time a
        // browser has at its start to load the extension is over.
        let chromium = try desktop.startAsKid(
            try BrowserRig.chromiumCommand(
                profile: "/home/\(desktop.kid)/chromium", urls: ["http://en.wiki.test:\(rig.port)/wiki.html"]) + [
                    "--disable-extensions"
                ])
        let window = try rig.window(
            titled: "Wiki page - Chromium", display: desktop.display, xdotool: xdotool, or: chromium)
        let titled = Date()
        try desktop.waitFor("the cover over Chromium being checked", timeout: 5) {
            self.desktop.lastCoverReport().map { $0.count == 2 && $0.stores.contains("browser-checking") } ?? false
        }
        // Covered as soon as its window had the focus: the page's title comes later than that.
        XCTAssertLessThan(Date().timeIntervalSince(titled), 1, "covered only after its page showed")
        desktop.screenshot("managed-browser-checked.png")
        try desktop.waitFor("the shield over Chromium without its extensions", timeout: 20) {
            self.desktop.lastCoverReport().map { $0.count == 2 && $0.stores == "unsupported-browser" } ?? false
        }
        XCTAssertFalse(rig.hostLines.contains("is connected"), "the extension ran after all: \(rig.hostLines)")

        // Firefox in safe mode (its extensions off; the policy takes it from the menus only):
        // its first window (safe mode's question) is covered, then shielded as not supported.
        let profile = "/home/\(desktop.kid)/firefox-safe"
        XCTAssertEqual(try desktop.runAsKid(["mkdir", "-p", profile]).status, 0)
        let firefox = try desktop.startAsKid(
            try BrowserRig.firefoxCommand(profile: profile, urls: ["--safe-mode", "http://en.wiki.test:\(rig.port)/"]),
            environment: ["MOZ_CRASHREPORTER_DISABLE": "1"])
        defer { firefox.stop(grace: 5) }
        try desktop.waitFor("the cover over Firefox in safe mode", timeout: 30) {
            self.desktop.lastCoverReport().map { $0.count == 3 && $0.stores.contains("browser-checking") } ?? false
        }
        desktop.screenshot("managed-firefox-safe-mode.png")
        try desktop.waitFor("the shield over Firefox in safe mode", timeout: 20) {
            self.desktop.lastCoverReport().map { $0.count == 3 && $0.stores == "unsupported-browser" } ?? false
        }
    }

    /// With a managed user the browsers' policies close their ways around the extension,
    /// machine-wide: asked for a private window, Firefox shows that it is blocked and Chromium
    /// opens an ordinary one.
    func testWithAManagedUserThePrivateWindowsDoNotOpen() throws {
        let rig = try start()
        let xdotool = try requireProgram("xdotool", package: "xdotool")
        try desktop.startManagedSession()
        try desktop.waitFor("the browsers' policies for managed users") {
            self.fixture.daemon?.standardError.contains("the browsers' policies for managed users are on") ?? false
        }
        let kid = desktop.kid
        let wiki = "http://en.wiki.test:\(rig.port)/wiki.html"

        XCTAssertEqual(try desktop.runAsKid(["mkdir", "-p", "/home/\(kid)/firefox"]).status, 0)
        let firefox = try desktop.startAsKid(
            try BrowserRig.firefoxCommand(profile: "/home/\(kid)/firefox", urls: ["--private-window", wiki]),
            environment: ["MOZ_CRASHREPORTER_DISABLE": "1"])
        // Firefox says the private window is blocked, in an ordinary one.
        _ = try rig.window(
            titled: "Blocked Page — Mozilla Firefox", display: desktop.display, xdotool: xdotool, or: firefox)
        XCTAssertFalse(
            rig.hasWindow(
                titled: "Wiki page — Mozilla Firefox Private Browsing", display: desktop.display, xdotool: xdotool))
        firefox.stop(grace: 5)

        // Chromium opens an ordinary window instead, whose tab the extension sees (a fresh
        // profile's extension is not allowed in private windows): its time is counted.
        let chromium = try desktop.startAsKid(
            try BrowserRig.chromiumCommand(profile: "/home/\(kid)/chromium-private", urls: ["--incognito", wiki]))
        let chromiumWindow = try rig.window(
            titled: "Wiki page - Chromium", display: desktop.display, xdotool: xdotool, or: chromium)
        XCTAssertEqual(try desktop.runAsKid(["xdotool", "windowactivate", chromiumWindow]).status, 0)
        try desktop.waitFor("time on wiki.test in the window Chromium opened", timeout: 30) {
            try self.websiteSeconds()["wiki.test"] ?? 0 >= 1
        }
    }

    /// Chromium's DevTools protocol, through which a client of the child's could take the
    /// extension's rules away, is off by policy once the computer has a managed user (before,
    /// the same command line opens it: the control). A limited website under another spelling
    /// of its host (the root's dot, `www.videos.test.`) is the same website, covered.
    func testRemoteDebuggingIsOffAndALimitedWebsiteByAnotherNameIsShielded() throws {
        let rig = try start()
        let xdotool = try requireProgram("xdotool", package: "xdotool")
        let kid = desktop.kid
        let wiki = "http://en.wiki.test:\(rig.port)/wiki.html"
        func debugged(_ profile: String) throws -> Bool {
            let chromium = try desktop.startAsKid(
                try BrowserRig.chromiumCommand(profile: profile, urls: ["--remote-debugging-port=0", wiki]))
            defer { chromium.stop(grace: 5) }
            _ = try rig.window(titled: "Wiki page - Chromium", display: desktop.display, xdotool: xdotool, or: chromium)
            Thread.sleep(forTimeInterval: 2)
            return FileManager.default.fileExists(atPath: "\(profile)/DevToolsActivePort")
                || chromium.standardError.contains("DevTools listening on")
        }
        // Firefox's remote agent (WebDriver BiDi, `--remote-debugging-port`): its DisableDeveloperTools
        // policy turns it off too (there is no policy for `remote.enabled`, a preference the
        // policies may not set).
        func firefoxListens(_ profile: String) throws -> Bool {
            XCTAssertEqual(try desktop.runAsKid(["mkdir", "-p", profile]).status, 0)
            let firefox = try desktop.startAsKid(
                try BrowserRig.firefoxCommand(profile: profile, urls: ["--remote-debugging-port", "0", wiki]),
                environment: ["MOZ_CRASHREPORTER_DISABLE": "1"])
            defer { firefox.stop(grace: 5) }
            _ = try rig.window(
                titled: "Wiki page — Mozilla Firefox", display: desktop.display, xdotool: xdotool, or: firefox)
            Thread.sleep(forTimeInterval: 2)
            return firefox.standardError.contains("WebDriver BiDi listening on")
                || firefox.outputLines.contains { $0.contains("WebDriver BiDi listening on") }
        }
        XCTAssertTrue(try debugged("/home/\(kid)/chromium-before"), "the control: remote debugging before")
        XCTAssertTrue(try firefoxListens("/home/\(kid)/firefox-before"), "the control: Firefox's remote agent before")
        try desktop.startManagedSession()
        try desktop.waitFor("the browsers' policies for managed users") {
            self.fixture.daemon?.standardError.contains("the browsers' policies for managed users are on") ?? false
        }
        XCTAssertFalse(try debugged("/home/\(kid)/chromium-after"), "remote debugging must be off for a managed user")
        XCTAssertFalse(
            try firefoxListens("/home/\(kid)/firefox-after"), "Firefox's remote agent must be off for a managed user")

        let added = try fixture.screenward(
            as: "root", ["limit", "add", "Videos", "--site", "videos.test", "--daily", "1s", "--user", kid])
        XCTAssertEqual(added.status, 0, added.error)
        // The limited website by another name: its host with the root's dot is that website;
        // the same server at an address (an IP address, a name without a dot) is no website
        // to use in a managed account.
        let pages = [
            ("dot", "http://www.videos.test.:\(rig.port)/video.html", "videos.test"),
            ("ip", "http://127.0.0.1:\(rig.port)/video.html", "127.0.0.1"),
            ("localhost", "http://localhost:\(rig.port)/video.html", "localhost"),
        ]
        for (browser, dash) in [("chromium", "-"), ("firefox", "—")] {
            for (name, page, site) in pages where browser == "chromium" || name != "localhost" {
                let profile = "/home/\(kid)/\(browser)-\(name)"
                let command =
                    browser == "chromium"
                    ? try BrowserRig.chromiumCommand(profile: profile, urls: [page])
                    : try BrowserRig.firefoxCommand(profile: profile, urls: [page])
                XCTAssertEqual(try desktop.runAsKid(["mkdir", "-p", profile]).status, 0)
                let started = try desktop.startAsKid(command, environment: ["MOZ_CRASHREPORTER_DISABLE": "1"])
                defer { started.stop(grace: 5) }
                let browserName = browser == "chromium" ? "Chromium" : "Mozilla Firefox"
                _ = try rig.window(
                    titled: "\(site) (restricted) \(dash) \(browserName)", display: desktop.display,
                    xdotool: xdotool, or: started)
            }
        }
        XCTAssertNil(try websiteSeconds()["127.0.0.1"], "an address counted as a website")
    }

    /// The extension is the browsers' by policy, not the child's: removed from the child's
    /// profile (as a child with a shell can), it is back at the browser's next start, and
    /// reports again.
    func testTheChildCannotRemoveTheExtension() throws {
        let rig = try start()
        let xdotool = try requireProgram("xdotool", package: "xdotool")
        try desktop.startManagedSession()
        let kid = desktop.kid
        let profile = "/home/\(kid)/chromium"
        let connections = { rig.hostLines.components(separatedBy: "is connected").count - 1 }
        let browser = "^/usr/lib/chromium/chromium .*--user-data-dir=\(profile)"
        func run() throws -> String {
            let chromium = try desktop.startAsKid(
                try BrowserRig.chromiumCommand(profile: profile, urls: ["http://en.wiki.test:\(rig.port)/wiki.html"]))
            return try rig.window(
                titled: "Wiki page - Chromium", display: desktop.display, xdotool: xdotool, or: chromium)
        }
        _ = try run()
        try desktop.waitFor("the extension to connect", timeout: 60) { connections() >= 1 }
        XCTAssertEqual(try desktop.runAsKid(["pkill", "-TERM", "-u", kid, "-f", browser]).status, 0)
        try desktop.waitFor("Chromium to end", timeout: 30) {
            try self.desktop.runAsKid(["pgrep", "-u", kid, "-f", browser]).status != 0
        }

        // The child takes the extension out of their profile.
        let removed = try desktop.runAsKid([
            "sh", "-c", "ls '\(profile)/Default/Extensions' && rm -rf '\(profile)/Default/Extensions'",
        ])
        XCTAssertEqual(removed.status, 0, removed.error)
        XCTAssertFalse(removed.output.isEmpty, "the extension was in the profile")
        let window = try run()
        try desktop.waitFor("the extension back", timeout: 60) { connections() >= 2 }
        XCTAssertEqual(try desktop.runAsKid(["xdotool", "windowactivate", window]).status, 0)
        let before = try websiteSeconds()["wiki.test"] ?? 0
        try desktop.waitFor("time on wiki.test again", timeout: 30) {
            try self.websiteSeconds()["wiki.test"] ?? 0 >= before + 1
        }
    }

    /// The child's time per website, as a guardian reads it.
    private func websiteSeconds() throws -> [String: Double] {
        let result = try fixture.screenward(
            as: "root", ["usage", "--user", desktop.kid, "--web", "--json", "--since", "2000-01-01", "--until", "now"])
        guard result.status == 0,
            let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any],
            let sites = object["websites"] as? [[String: Any]]
        else { throw HarnessError.failed("screenward usage --user --web: \(result.output) \(result.error)") }
        var seconds: [String: Double] = [:]
        for site in sites { seconds[site["domain"] as? String ?? "?"] = site["seconds"] as? Double }
        return seconds
    }

    /// A shell command that writes `message` as one native-messaging message.
    private static func framing(_ message: String) -> String {
        let length = message.utf8.count
        let bytes = (0..<4).map { String(format: "\\%03o", (length >> (8 * $0)) & 0xFF) }.joined()
        return "{ printf '\(bytes)'; printf '%s' '\(message)'; }"
    }
}
