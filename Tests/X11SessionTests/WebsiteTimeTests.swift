@_spi(Screenward) import FamilyControls
import Foundation
@_spi(Screenward) import ManagedSettings
@_spi(Screenward) import ManagedSettingsUI
import ScreenwardCore
import ScreenwardIPC
import SessionHarness
import Synchronization
import TestSupport
import X11Session
import XCTest

/// Time per website in Debian's real Chromium and Firefox ESR, under Xvfb with openbox (not
/// headless), with Screenward's extension installed the way an administrator installs it
/// (`screenward browsers install`: policies and native-messaging manifests in /etc), pages
/// from a local HTTP server under several host names (/etc/hosts), and the real agent.
final class WebsiteTimeTests: XSessionTestCase {
    private var rig: BrowserRig?

    override func tearDownWithError() throws {
        rig?.remove()
        try super.tearDownWithError()
    }

    private func makeRig() throws -> BrowserRig {
        if let missing = BrowserRig.missingRequirement() { try cannotRun(missing) }
        let rig = try BrowserRig(temporary: temporary)
        self.rig = rig
        return rig
    }

    func testTimePerWebsiteFollowsTabsAndWindowsAcrossBothBrowsers() throws {
        let rig = try makeRig()
        let session = try startXSession()
        let xdotool = try requireTool("xdotool")
        let catalog = try catalogEnvironment(entries: [:])
        let sentinel = try DemoApplications(display: session.display, windows: ["sentinel.Sentinel"])
        let driver = try FocusDriver(display: session.display)
        try driver.activate(sentinel.windows[0])
        let agent = try AgentRun(display: session.display, home: home, environment: catalog, verbose: true)
        defer { agent.stop() }

        // Chromium with two tabs, Firefox with two; each window is named by its active tab.
        // The browsers start the host, which finds the agent as every program of the session
        // does: by the session's environment (here the test agent's home).
        let chromium = try rig.chromium(
            environment: agent.environment,
            urls: ["http://www.videos.test:\(rig.port)/video.html", "http://en.wiki.test:\(rig.port)/wiki.html"])
        let chromiumWindow = try rig.window(
            titled: "Video page - Chromium", display: session.display, xdotool: xdotool, or: chromium)
        let firefox = try rig.firefox(
            environment: agent.environment,
            urls: ["http://news.test:\(rig.port)/news.html", "http://m.videos.test:\(rig.port)/video.html"])
        let firefoxWindow = try rig.window(
            titled: "News page — Mozilla Firefox", display: session.display, xdotool: xdotool, or: firefox)

        func key(_ keys: String, expecting title: String) throws {
            let press = try ChildProcess(xdotool, ["key", keys], environment: ["DISPLAY": session.display])
            press.closeInput()
            XCTAssertEqual(press.waitForExit(timeout: 10), 0)
            _ = try rig.window(titled: title, display: session.display, xdotool: xdotool, or: nil)
        }
        // The agent's log names the website a window shows (`on news.test`, `website: videos.test (www.videos.test)`).
        func waitForWebsite(_ site: String) {
            let seen = {
                agent.process.standardError.contains(" on \(site)")
                    || agent.process.standardError.contains("website: \(site)")
            }
            let deadline = Date().addingTimeInterval(30)
            while !seen(), Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            XCTAssertTrue(seen(), "the agent never saw \(site): \(agent.process.standardError.suffix(3000))")
        }
        // Before the timeline: each browser reports (its extension is installed and connected).
        try driver.activate(chromiumWindow)
        waitForWebsite("videos.test (www.videos.test)")
        try driver.activate(firefoxWindow)
        waitForWebsite("news.test")
        try driver.activate(sentinel.windows[0])
        Thread.sleep(forTimeInterval: 0.3)
        _ = try agent.cli(["usage"])  // the time so far is the baseline
        let before = try webUsage(agent)

        // The timeline: the test's own clock says what each site had.
        var truth: [String: Double] = [:]
        var hostTruth: [String: Double] = [:]
        var last = (site: "", host: "", at: Date())
        func now(_ site: String, _ host: String) {
            let at = Date()
            if !last.site.isEmpty {
                truth[last.site, default: 0] += at.timeIntervalSince(last.at)
                hostTruth[last.host, default: 0] += at.timeIntervalSince(last.at)
            }
            last = (site, host, at)
        }
        try driver.activate(chromiumWindow)
        now("videos.test", "www.videos.test")
        Thread.sleep(forTimeInterval: 2)
        try key("ctrl+2", expecting: "Wiki page - Chromium")
        now("wiki.test", "en.wiki.test")
        Thread.sleep(forTimeInterval: 1.5)
        try driver.activate(firefoxWindow)
        now("news.test", "news.test")
        Thread.sleep(forTimeInterval: 1.5)
        try key("ctrl+Tab", expecting: "Video page — Mozilla Firefox")
        now("videos.test", "m.videos.test")
        Thread.sleep(forTimeInterval: 1)
        try driver.activate(chromiumWindow)
        now("wiki.test", "en.wiki.test")
        Thread.sleep(forTimeInterval: 1)
        try driver.activate(sentinel.windows[0])
        now("", "")
        Thread.sleep(forTimeInterval: 0.3)

        let after = try webUsage(agent)
        for (site, seconds) in truth {
            let measured = (after.sites[site] ?? 0) - (before.sites[site] ?? 0)
            print("\(site): agent \(measured) s, timeline \(seconds) s")
            // Each switch waits for the window's new title, a few tens of milliseconds after
            // the agent saw it: the timeline is that much late on each side.
            XCTAssertEqual(
                measured, seconds, accuracy: 0.25,
                "\(site): agent \(measured) s, timeline \(seconds) s; \(agent.process.standardError.suffix(3000))")
        }
        for (host, seconds) in hostTruth {
            XCTAssertEqual((after.hosts[host] ?? 0) - (before.hosts[host] ?? 0), seconds, accuracy: 0.25, host)
        }
        // The browsers' own time holds their websites' and nothing is counted twice.
        let usage = try agent.usage()
        let browsersTime = usage.apps.filter {
            $0.id.lowercased().contains("chromium") || $0.id.lowercased().contains("firefox")
        }.reduce(0) { $0 + $1.seconds }
        XCTAssertGreaterThanOrEqual(browsersTime + 0.01, after.total, "\(usage.apps.map(\.id))")
        // CSV lines end in CR LF, which `cli` (a Swift string, where "\r\n" is one character) would not split.
        let csvRun = try ChildProcess(
            try ProjectPrograms.url(of: "screenward"), ["usage", "--csv", "--since", "2000-01-01"],
            environment: agent.environment)
        csvRun.closeInput()
        XCTAssertEqual(csvRun.waitForExit(timeout: 30), 0, csvRun.standardError)
        let csv = csvRun.outputLines
        XCTAssertEqual(csv.first, "id,name,token,seconds,website,computer\r", "\(csv)")
        XCTAssertTrue(
            csv.contains { $0.hasSuffix(",videos.test,\r") } && csv.contains { $0.hasSuffix(",news.test,\r") }, "\(csv)"
        )
        let table = try agent.cli(["usage", "--web", "--since", "2000-01-01"])
        XCTAssertTrue(table.contains("videos.test") && table.contains("wiki.test"), table)
        // The built-in report draws its table of websites.
        let folder = URL(
            fileURLWithPath: ProcessInfo.processInfo.environment["SCREENWARD_SCREENSHOTS"] ?? temporary.path)
        let png = folder.appendingPathComponent("report-websites.png")
        _ = try agent.cli(["report", "--png", png.path])
        XCTAssertTrue(FileManager.default.fileExists(atPath: png.path))
    }

    /// A website an app's store shields shows the shield page in a tab already open on it and
    /// in every tab that goes there, in both browsers, without one request reaching the website;
    /// unshielded, the tabs have their pages back.
    func testAShieldedWebsiteShowsTheShieldPageInBothBrowsers() throws {
        let rig = try makeRig()
        let session = try startXSession()
        let xdotool = try requireTool("xdotool")
        let agent = try AgentRun(
            display: session.display, home: home, environment: try catalogEnvironment(entries: [:]), verbose: true)
        defer { agent.stop() }
        let chromium = try rig.chromium(
            environment: agent.environment, urls: ["http://www.videos.test:\(rig.port)/video.html"])
        _ = try rig.window(titled: "Video page - Chromium", display: session.display, xdotool: xdotool, or: chromium)
        let firefox = try rig.firefox(
            environment: agent.environment, urls: ["http://m.videos.test:\(rig.port)/video.html"])
        _ = try rig.window(
            titled: "Video page — Mozilla Firefox", display: session.display, xdotool: xdotool, or: firefox)
        // Both extensions are connected to their hosts.
        try rig.waitUntilConnected(["chromium", "firefox"], timeout: 30)

        // An app shields videos.test through its store, as Worklog shields its websites.
        let client = ServiceClient(
            transport: SocketTransport(path: home.appendingPathComponent("agent.sock").path),
            bundleIdentifier: "org.example.focus")
        ScreenwardApp.client = client
        try agent.allowAccess("org.example.focus")
        _ = try client.call(AuthorizationMethods.request, .individual)
        // Its shield extensions: the look of its websites' shield, and what its buttons do.
        let pressed = Pressed()
        // Its icon: a magenta square, found on the screen once the page has the look.
        let icon = temporary.appendingPathComponent("videos-icon.png")
        _ = try toolOutput("convert", ["-size", "64x64", "xc:#FF00FF", icon.path], display: session.display)
        let configuration = try ShieldConfigurationAttachment.attach(VideosShield(icon: icon.path), client: client)
        let actions = try ShieldActionAttachment.attach(VideosActions(pressed: pressed), client: client)
        defer { _ = (configuration, actions) }
        let selection = try client.call(
            AuthorizationMethods.issueSelection, SelectionRequest(webDomains: ["videos.test"]))
        let store = ManagedSettingsStore(named: .init("focus"))
        store.shield.webDomains = selection.webDomainTokens
        let requestsBefore = rig.requests(for: "/video.html")

        // The open tabs are covered.
        _ = try rig.window(
            titled: "videos.test (restricted) - Chromium", display: session.display, xdotool: xdotool, or: chromium)
        _ = try rig.window(
            titled: "videos.test (restricted) — Mozilla Firefox", display: session.display, xdotool: xdotool,
            or: firefox)
        // Another website loads; going to a shielded one (another host of it) shows the shield.
        let chromiumWindow = try rig.window(
            titled: "videos.test (restricted) - Chromium", display: session.display, xdotool: xdotool, or: chromium)
        try rig.navigate(
            chromiumWindow, to: "http://en.wiki.test:\(rig.port)/wiki.html", display: session.display, xdotool: xdotool)
        _ = try rig.window(titled: "Wiki page - Chromium", display: session.display, xdotool: xdotool, or: chromium)
        try rig.navigate(
            chromiumWindow, to: "http://m.videos.test:\(rig.port)/video.html", display: session.display,
            xdotool: xdotool)
        _ = try rig.window(
            titled: "videos.test (restricted) - Chromium", display: session.display, xdotool: xdotool, or: chromium)
        XCTAssertEqual(rig.requests(for: "/video.html"), requestsBefore, "a shielded website was asked for a page")
        // The app's look reached the pages.
        let looked = Date().addingTimeInterval(10)
        while !agent.process.standardError.contains(
            "web shield: the look for videos.test: \"No videos before homework\""), Date() < looked
        {
            Thread.sleep(forTimeInterval: 0.05)
        }
        XCTAssertTrue(
            agent.process.standardError.contains("web shield: the look for videos.test: \"No videos before homework\""),
            agent.process.standardError.suffix(3000).description)
        Thread.sleep(forTimeInterval: 0.5)  // the page drawn
        screenshot("web-shield-chromium.png", on: session.display)
        let shot = temporary.appendingPathComponent("shield-page.png")
        _ = try toolOutput("import", ["-window", "root", shot.path], display: session.display)
        let colours = try toolOutput(
            "convert", [shot.path, "-format", "%c", "histogram:info:-"], display: session.display)
        XCTAssertTrue(
            colours.contains("#FF00FF"),
            "the app's icon is not on the shield page: \(agent.process.standardError.suffix(1500))")

        // Unshielded: the tabs show their pages again.
        store.shield.webDomains = nil
        _ = try rig.window(titled: "Video page - Chromium", display: session.display, xdotool: xdotool, or: chromium)
        _ = try rig.window(
            titled: "Video page — Mozilla Firefox", display: session.display, xdotool: xdotool, or: firefox)
        XCTAssertGreaterThan(rig.requests(for: "/video.html"), requestsBefore)

        // Shielded again: the page's second button goes to the app's delegate, whose `.close`
        // closes the tab (and so Chromium's window, its only tab).
        store.shield.webDomains = selection.webDomainTokens
        let shieldWindow = try rig.window(
            titled: "videos.test (restricted) - Chromium", display: session.display, xdotool: xdotool, or: chromium)
        try rig.pressSecondaryButton(in: shieldWindow, display: session.display, xdotool: xdotool)
        let closed = Date().addingTimeInterval(10)
        while pressed.actions.isEmpty
            || rig.hasWindow(titled: "videos.test (restricted) - Chromium", display: session.display, xdotool: xdotool),
            Date() < closed
        {
            Thread.sleep(forTimeInterval: 0.1)
        }
        XCTAssertEqual(
            pressed.actions, [.secondaryButtonPressed],
            "the delegate heard the button: \(agent.process.standardError.suffix(2000))")
        XCTAssertFalse(
            rig.hasWindow(titled: "videos.test (restricted) - Chromium", display: session.display, xdotool: xdotool),
            "the delegate's .close closed the tab")
    }

    /// `screenward limit add --site`: a website's daily limit counts its time in the
    /// browser and, used up, shields it there; another website stays open.
    func testALimitOnAWebsiteShieldsItOnceUsedUp() throws {
        let rig = try makeRig()
        let session = try startXSession()
        let xdotool = try requireTool("xdotool")
        let agent = try AgentRun(
            display: session.display, home: home, environment: try catalogEnvironment(entries: [:]), verbose: true)
        defer { agent.stop() }
        let added = try agent.cli(["limit", "add", "Videos", "--site", "https://www.videos.test/", "--daily", "3s"])
        XCTAssertTrue(added.contains("Videos"), added)
        let chromium = try rig.chromium(
            environment: agent.environment, urls: ["http://en.wiki.test:\(rig.port)/wiki.html"])
        let window = try rig.window(
            titled: "Wiki page - Chromium", display: session.display, xdotool: xdotool, or: chromium)
        // Wikipedia is not limited: time there is not the limit's.
        Thread.sleep(forTimeInterval: 3.5)
        try rig.navigate(
            window, to: "http://www.videos.test:\(rig.port)/video.html", display: session.display, xdotool: xdotool)
        _ = try rig.window(titled: "Video page - Chromium", display: session.display, xdotool: xdotool, or: chromium)
        let start = Date()
        _ = try rig.window(
            titled: "videos.test (restricted) - Chromium", display: session.display, xdotool: xdotool, or: chromium)
        let after = Date().timeIntervalSince(start)
        XCTAssertEqual(after, 3, accuracy: 1, "the limit of 3 s was reached after \(after) s on the website")
        let list = try agent.cli(["limit", "list"])
        XCTAssertTrue(list.contains("videos.test"), list)
        // Time in front of the shield page counts for nothing, not even the browser.
        func browserSeconds() throws -> Double {
            try agent.usage().apps.filter { $0.id.lowercased().contains("chromium") }.reduce(0) { $0 + $1.seconds }
        }
        Thread.sleep(forTimeInterval: 0.5)
        let before = try browserSeconds()
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertEqual(
            try browserSeconds(), before, accuracy: 0.05, "the browser's time grew in front of the shield page")
        // The rules' own shield says which limit it is, and offers its "15 more minutes",
        // which lifts the shield: the tab has its page back.
        let said = "web shield: the look for videos.test: \"Time's up: Videos\""
        let looked = Date().addingTimeInterval(10)
        while !agent.process.standardError.contains(said), Date() < looked { Thread.sleep(forTimeInterval: 0.05) }
        XCTAssertTrue(agent.process.standardError.contains(said), agent.process.standardError.suffix(3000).description)
        try rig.pressSecondaryButton(in: window, display: session.display, xdotool: xdotool)
        _ = try rig.window(titled: "Video page - Chromium", display: session.display, xdotool: xdotool, or: chromium)
        let status = try agent.cli(["status"])
        XCTAssertTrue(status.contains("(with 15m 00s extra)"), "the extra time is the rule's: \(status)")
        // Another website still loads.
        try rig.navigate(
            window, to: "http://en.wiki.test:\(rig.port)/wiki.html", display: session.display, xdotool: xdotool)
        _ = try rig.window(titled: "Wiki page - Chromium", display: session.display, xdotool: xdotool, or: chromium)
        XCTAssertThrowsError(try agent.cli(["limit", "add", "Bad", "--site", "not a website", "--daily", "1h"]))
    }

    /// A downtime with a website always allowed (`allow --site`): the browser stays open for
    /// that website, and only for it (another shows the downtime's shield page), while another
    /// application is shielded.
    func testDowntimeLeavesTheBrowserOpenForTheAllowedWebsiteOnly() throws {
        let rig = try makeRig()
        let session = try startXSession()
        let xdotool = try requireTool("xdotool")
        let catalog = try catalogEnvironment(entries: [
            "chromium.desktop":
                "[Desktop Entry]\nType=Application\nName=Chromium\nExec=chromium %U\nStartupWMClass=chromium\n"
                + "Categories=Network;WebBrowser;\n",
            "game.desktop":
                "[Desktop Entry]\nType=Application\nName=Game\nExec=game\nStartupWMClass=Game\nCategories=Game;\n",
        ])
        let game = try DemoApplications(display: session.display, windows: ["game.Game"])
        let agent = try AgentRun(display: session.display, home: home, environment: catalog, verbose: true)
        defer { agent.stop() }
        XCTAssertTrue(
            try agent.cli(["allow", "--site", "https://en.wiki.test/wiki"]).contains("Always allowed: site:wiki.test"))
        XCTAssertTrue(try agent.cli(["allow", "list"]).contains("site:wiki.test  wiki.test"))
        let now = Date()
        _ = try agent.cli([
            "downtime", "add", "Bedtime", "--from", Self.hourAndMinute(now.addingTimeInterval(-3600)), "--to",
            Self.hourAndMinute(now.addingTimeInterval(3600)),
        ])

        let chromium = try rig.chromium(
            environment: agent.environment, urls: ["http://en.wiki.test:\(rig.port)/wiki.html"])
        let window = try rig.window(
            titled: "Wiki page - Chromium", display: session.display, xdotool: xdotool, or: chromium)
        try rig.navigate(
            window, to: "http://news.test:\(rig.port)/news.html", display: session.display, xdotool: xdotool)
        _ = try rig.window(
            titled: "news.test (restricted) - Chromium", display: session.display, xdotool: xdotool, or: chromium)
        let said = "web shield: the look for news.test: \"Downtime: Bedtime\""
        let looked = Date().addingTimeInterval(10)
        while !agent.process.standardError.contains(said), Date() < looked { Thread.sleep(forTimeInterval: 0.05) }
        XCTAssertTrue(agent.process.standardError.contains(said), agent.process.standardError.suffix(3000).description)
        try rig.navigate(
            window, to: "http://en.wiki.test:\(rig.port)/wiki.html", display: session.display, xdotool: xdotool)
        _ = try rig.window(titled: "Wiki page - Chromium", display: session.display, xdotool: xdotool, or: chromium)
        // The game's window is covered, the browser's is not.
        var covered = ""
        let deadline = Date().addingTimeInterval(10)
        repeat {
            covered = try agent.cli(["shields"]).components(separatedBy: "Covered now").dropFirst().joined()
            if covered.contains("Game") { break }
            Thread.sleep(forTimeInterval: 0.1)
        } while Date() < deadline
        XCTAssertTrue(covered.contains("Game"), covered)
        XCTAssertFalse(covered.contains("Chromium"), covered)
        XCTAssertTrue(game.process.isRunning)
    }

    /// Worklog's gaming store: `webDomainCategories = .specific([games])` shields the websites
    /// the category table puts in Games, and no other.
    func testAStoreShieldingACategoryShieldsItsWebsites() throws {
        let rig = try makeRig()
        let session = try startXSession()
        let xdotool = try requireTool("xdotool")
        let data = try rig.dataDirectory(websites: ["videos.test": "Game", "wiki.test": "Education"])
        let agent = try AgentRun(
            display: session.display, home: home,
            environment: try catalogEnvironment(entries: [:]).merging(["SCREENWARD_DATA_DIR": data.path]) { $1 },
            verbose: true)
        defer { agent.stop() }
        let chromium = try rig.chromium(
            environment: agent.environment, urls: ["http://www.videos.test:\(rig.port)/video.html"])
        let window = try rig.window(
            titled: "Video page - Chromium", display: session.display, xdotool: xdotool, or: chromium)

        let client = ServiceClient(
            transport: SocketTransport(path: home.appendingPathComponent("agent.sock").path),
            bundleIdentifier: "org.example.worklog")
        ScreenwardApp.client = client
        try agent.allowAccess("org.example.worklog")
        _ = try client.call(AuthorizationMethods.request, .individual)
        let games = try client.call(AuthorizationMethods.issueSelection, SelectionRequest(categories: ["Game"]))
            .categoryTokens
        let gaming = ManagedSettingsStore(named: .init("gaming"))
        gaming.shield.webDomainCategories = .specific(games)
        _ = try rig.window(
            titled: "videos.test (restricted) - Chromium", display: session.display, xdotool: xdotool, or: chromium)
        let shields = try agent.cli(["shields"])
        XCTAssertTrue(shields.contains("org.example.worklog"), shields)
        try rig.navigate(
            window, to: "http://en.wiki.test:\(rig.port)/wiki.html", display: session.display, xdotool: xdotool)
        _ = try rig.window(titled: "Wiki page - Chromium", display: session.display, xdotool: xdotool, or: chromium)
        gaming.shield.webDomainCategories = nil
    }

    /// Worklog (WWDC22) as it is, its own program: the stores its setup makes shield the
    /// websites the category table puts in Social and in Games, and the evening its monitor
    /// starts lifts Social's and leaves Gaming's, in tabs already open on them.
    func testWorklogsOwnStoresShieldItsCategoriesWebsitesAndItsEveningLiftsSocials() throws {
        let rig = try makeRig()
        let session = try startXSession()
        let xdotool = try requireTool("xdotool")
        let data = try rig.dataDirectory(websites: ["news.test": "Social", "videos.test": "Game"])
        let agent = try AgentRun(
            display: session.display, home: home,
            environment: try catalogEnvironment(entries: [:]).merging(["SCREENWARD_DATA_DIR": data.path]) { $1 },
            verbose: true)
        defer { agent.stop() }
        let manifests = agent.process.standardError.components(separatedBy: "with extensions").count
        XCTAssertTrue(try runProject("worklog", ["install"], agent.environment).contains("Installed"))
        let read = Date().addingTimeInterval(10)
        while agent.process.standardError.components(separatedBy: "with extensions").count <= manifests, Date() < read {
            Thread.sleep(forTimeInterval: 0.05)
        }
        // The tabs are open on both websites before Worklog's setup makes its stores.
        let chromium = try rig.chromium(
            environment: agent.environment,
            urls: ["http://news.test:\(rig.port)/news.html", "http://www.videos.test:\(rig.port)/video.html"])
        let window = try rig.window(
            titled: "News page - Chromium", display: session.display, xdotool: xdotool, or: chromium)
        try rig.waitUntilConnected(["chromium"], timeout: 30)
        try agent.allowAccess("org.example.worklog")
        XCTAssertTrue(try runProject("worklog", ["setup"], agent.environment).contains("authorised"))
        func show(tab: Int, expecting title: String) throws {
            _ = try toolOutput(
                "xdotool", ["windowactivate", "--sync", window, "key", "ctrl+\(tab)"], display: session.display)
            _ = try rig.window(titled: title, display: session.display, xdotool: xdotool, or: chromium)
        }
        try show(tab: 1, expecting: "news.test (restricted) - Chromium")
        try show(tab: 2, expecting: "videos.test (restricted) - Chromium")
        let videoPages = rig.requests(for: "/video.html")

        let now = Date()
        _ = try runProject(
            "worklog",
            [
                "allow-evenings", "--from", Self.hourAndMinute(now.addingTimeInterval(-3600)), "--until",
                Self.hourAndMinute(now.addingTimeInterval(3600)),
            ],
            agent.environment)
        try show(tab: 1, expecting: "News page - Chromium")
        try show(tab: 2, expecting: "videos.test (restricted) - Chromium")
        XCTAssertEqual(rig.requests(for: "/video.html"), videoPages, "Gaming's website stays shielded")
        XCTAssertTrue(
            agent.process.standardError.contains("started org.example.worklog's device-activity-monitor extension"))
    }

    /// A browser started again on a shielded website covers it. Firefox keeps the extension's
    /// rules, so the page goes to the shield from its first request, before the extension has
    /// heard from the owner; Chromium loads the pages it opens with before its extensions are
    /// ready (measured: the page is asked for), and its tab is covered once the shields arrive.
    func testARestartedBrowserCoversTheShieldedWebsiteItOpensWith() throws {
        let rig = try makeRig()
        let session = try startXSession()
        let xdotool = try requireTool("xdotool")
        let agent = try AgentRun(
            display: session.display, home: home, environment: try catalogEnvironment(entries: [:]), verbose: true)
        defer { agent.stop() }
        let client = ServiceClient(
            transport: SocketTransport(path: home.appendingPathComponent("agent.sock").path),
            bundleIdentifier: "org.example.focus")
        ScreenwardApp.client = client
        try agent.allowAccess("org.example.focus")
        _ = try client.call(AuthorizationMethods.request, .individual)
        let selection = try client.call(
            AuthorizationMethods.issueSelection, SelectionRequest(webDomains: ["videos.test"]))
        ManagedSettingsStore(named: .init("focus")).shield.webDomains = selection.webDomainTokens

        for (name, start, suffix) in [
            ("chromium", rig.chromium, " - Chromium"), ("firefox", rig.firefox, " — Mozilla Firefox"),
        ] {
            // First start: the wiki, then the shielded website, which the rules send to the shield.
            let first = try start(agent.environment, ["http://en.wiki.test:\(rig.port)/wiki.html"])
            _ = try rig.window(titled: "Wiki page\(suffix)", display: session.display, xdotool: xdotool, or: first)
            try rig.waitUntilConnected([name], timeout: 30)
            let window = try rig.window(
                titled: "Wiki page\(suffix)", display: session.display, xdotool: xdotool, or: first)
            try rig.navigate(
                window, to: "http://www.videos.test:\(rig.port)/video.html", display: session.display, xdotool: xdotool)
            _ = try rig.window(
                titled: "videos.test (restricted)\(suffix)", display: session.display, xdotool: xdotool, or: first)
            first.stop(grace: 10)
            while rig.hasWindow(titled: "videos.test (restricted)\(suffix)", display: session.display, xdotool: xdotool)
            { Thread.sleep(forTimeInterval: 0.1) }
            // Started again on the shielded website itself: not one request reaches it.
            let asked = rig.requests(for: "/video.html")
            let again = try start(agent.environment, ["http://www.videos.test:\(rig.port)/video.html"])
            _ = try rig.window(
                titled: "videos.test (restricted)\(suffix)", display: session.display, xdotool: xdotool, or: again)
            if name == "firefox" {
                XCTAssertEqual(
                    rig.requests(for: "/video.html"), asked,
                    "Firefox asked the shielded website for a page after its restart")
            } else {
                print(
                    """
                    Chromium, started again on the shielded website, asked it for \
                    \(rig.requests(for: "/video.html") - asked) page(s) before covering it
                    """
                )
            }
            again.stop(grace: 10)
        }
    }

    /// `webContent.blockedByFilter` in its three forms: the websites named, every website but
    /// the spared, and the administrator's lists in /etc/screenward/web-filter.d (`.auto`).
    func testTheWebContentFilterInItsThreeForms() throws {
        let rig = try makeRig()
        let session = try startXSession()
        let xdotool = try requireTool("xdotool")
        let agent = try AgentRun(
            display: session.display, home: home, environment: try catalogEnvironment(entries: [:]), verbose: true)
        defer { agent.stop() }
        let chromium = try rig.chromium(
            environment: agent.environment, urls: ["http://news.test:\(rig.port)/news.html"])
        let window = try rig.window(
            titled: "News page - Chromium", display: session.display, xdotool: xdotool, or: chromium)
        let client = ServiceClient(
            transport: SocketTransport(path: home.appendingPathComponent("agent.sock").path),
            bundleIdentifier: "org.example.filter")
        ScreenwardApp.client = client
        try agent.allowAccess("org.example.filter")
        _ = try client.call(AuthorizationMethods.request, .individual)
        let store = ManagedSettingsStore(named: .init("filter"))
        func go(_ url: String, expecting title: String) throws {
            try rig.navigate(window, to: url, display: session.display, xdotool: xdotool)
            _ = try rig.window(titled: title, display: session.display, xdotool: xdotool, or: chromium)
        }

        // .specific: the open tab on it is blocked.
        store.webContent.blockedByFilter = .specific([WebDomain(domain: "news.test")])
        _ = try rig.window(
            titled: "news.test (blocked) - Chromium", display: session.display, xdotool: xdotool, or: chromium)
        // .all(except:): only the spared website loads; the rest is blocked by host.
        store.webContent.blockedByFilter = .all(except: [WebDomain(domain: "wiki.test")])
        try go("http://en.wiki.test:\(rig.port)/wiki.html", expecting: "Wiki page - Chromium")
        try go("http://www.videos.test:\(rig.port)/video.html", expecting: "www.videos.test (blocked) - Chromium")
        // .auto: the administrator's list (none is shipped; this one is the test's).
        let list = URL(fileURLWithPath: WebFilter.listsFolder).appendingPathComponent(
            "screenward-test-\(UUID().uuidString).list")
        try FileManager.default.createDirectory(at: list.deletingLastPathComponent(), withIntermediateDirectories: true)
        try "# the test's list\nvideos.test\n".write(to: list, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: list) }
        store.webContent.blockedByFilter = .auto()
        _ = try rig.window(
            titled: "videos.test (blocked) - Chromium", display: session.display, xdotool: xdotool, or: chromium)
        try go("http://en.wiki.test:\(rig.port)/wiki.html", expecting: "Wiki page - Chromium")
        try go("http://m.videos.test:\(rig.port)/video.html", expecting: "videos.test (blocked) - Chromium")
        // No filter: the blocked tab has its page back.
        store.webContent.blockedByFilter = nil
        _ = try rig.window(titled: "Video page - Chromium", display: session.display, xdotool: xdotool, or: chromium)
        // A website named by token only is refused, with the reason.
        let problems = Mutex<[String]>([])
        let reporting = ScreenwardApp.problemHandler
        defer { ScreenwardApp.problemHandler = reporting }
        ScreenwardApp.problemHandler = { problem in problems.withLock { $0.append(problem) } }
        store.webContent.blockedByFilter = .specific([WebDomain(token: WebDomainToken(opaqueValue: "abc"))])
        XCTAssertTrue(problems.withLock { $0 }.contains { $0.contains("by domain") }, "\(problems.withLock { $0 })")
    }

    private struct WebUsage {
        var sites: [String: Double] = [:]
        var hosts: [String: Double] = [:]
        var total = 0.0
    }

    private func webUsage(_ agent: AgentRun) throws -> WebUsage {
        let text = try agent.cli(["usage", "--web", "--json", "--since", "2000-01-01"])
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            let sites = object["websites"] as? [[String: Any]]
        else {
            throw HarnessError.failed("not the JSON of usage --web: \(text)")
        }
        var usage = WebUsage(total: object["total_seconds"] as? Double ?? 0)
        for site in sites {
            usage.sites[site["domain"] as? String ?? "?"] = site["seconds"] as? Double
            for host in site["hosts"] as? [[String: Any]] ?? [] {
                usage.hosts[host["host"] as? String ?? "?"] = host["seconds"] as? Double
            }
        }
        return usage
    }
}

/// The look of the app's websites' shield.
private final class VideosShield: ShieldConfigurationDataSource {
    private var icon: String?

    /// - Parameter icon: an image file the look names for its icon.
    convenience init(icon: String) {
        self.init()
        self.icon = icon
    }

    override func configuration(shielding webDomain: WebDomain) -> ShieldConfiguration {
        ShieldConfiguration(
            icon: icon.map(ShieldIcon.init(contentsOfFile:)),
            title: .init(text: "No videos before homework", color: ShieldColor(red: 1, green: 1, blue: 1)),
            secondaryButtonLabel: .init(text: "Close this tab", color: ShieldColor(red: 0.04, green: 0.52, blue: 1)))
    }
}

/// What the app's delegate heard.
private final class Pressed: Sendable {
    private let list = Mutex<[ShieldAction]>([])
    var actions: [ShieldAction] { list.withLock { $0 } }
    func add(_ action: ShieldAction) { list.withLock { $0.append(action) } }
}

/// The app's delegate: the second button closes the tab.
private final class VideosActions: ShieldActionDelegate {
    private var pressed: Pressed?

    convenience init(pressed: Pressed) {
        self.init()
        self.pressed = pressed
    }

    override func handle(
        action: ShieldAction, for webDomain: WebDomainToken, completionHandler: @escaping (ShieldActionResponse) -> Void
    ) {
        pressed?.add(action)
        completionHandler(action == .secondaryButtonPressed ? .close : .none)
    }
}
