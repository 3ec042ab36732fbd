import ArgumentParser
@_spi(Screenward) import FamilyControls
import Foundation
import ManagedSettings
import ScreenwardCore
import ScreenwardIPC
import ScreenwardTesting
import SessionDisplay
import SessionHarness
import X11Session

/// Websites in Debian's real Chromium and Firefox ESR under Xvfb + openbox, with Screenward's
/// extension installed as root installs it (`BrowserRig`: policies, native-messaging
/// manifests, a local HTTP server under several host names) and the real agent.
///
/// - Accounting: a timeline of tab switches (the key that shows the next of three tabs, each
///   browser in turn), each tab kept for a random while. The truth of a switch is the browser's window title
///   changing to the new tab's (read from the X server as it comes, `TitleRecord`); the
///   agent's account is the ledger's intervals per website. The error of a switch is how far
///   the time the ledger gives that tab's visit is from the truth's.
/// - Shields: an app's store shields the website both windows show; a sample runs from the
///   store change to a window's title becoming the shield page's, and back once unshielded.
/// - Navigations to the shielded website: none may show a frame of it. The page is never
///   asked of the HTTP server (a frame of a page never fetched cannot be drawn) and the
///   window never takes its title.
/// - The extension's cost while nothing changes: the hosts' wakeups (their threads' context
///   switches, from /proc) over a quiet while. Each message the extension sends wakes its
///   host; an extension polling on a timer would.
struct WebBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "web",
        abstract:
            """
            Websites in real Chromium and Firefox ESR: accounting per tab switch, store change → tab covered, no \
            frame of a shielded site, no wakeups while idle (root).
            """
    )

    enum Targets {
        static let switchError = Target(
            figure: "accounting error per tab switch, p99", limit: 20, unit: "ms", inclusive: true, digits: 1)
        static let covered = Target(
            figure: "store change → open tab covered, p99", limit: 150, unit: "ms", inclusive: true, digits: 0)
        static let contentShown = Target(
            figure: "navigations to a shielded website that showed it", limit: 0, unit: "", inclusive: true, digits: 0)
        static let idleWakeups = Target(
            figure: "host wakeups while nothing changes", limit: 0, unit: "", inclusive: true, digits: 0)
    }

    @Option(help: "Tab switches per browser (three tabs, on three websites).")
    var switches = 60
    @Option(help: "Times the store shields the website both windows show, and stops.")
    var shields = 20
    @Option(help: "Navigations to the shielded website per browser.")
    var navigations = 8
    @Option(help: "Seconds of quiet over which the hosts' wakeups are counted.")
    var quiet = 20
    @Option(help: "Directory the figures are written to, as JSON.")
    var output = "bench-results"

    func validate() throws {
        guard switches >= 3, shields >= 1, navigations >= 1, quiet >= 1 else {
            throw ValidationError("--switches ≥ 3, --shields ≥ 1, --navigations ≥ 1, --quiet ≥ 1")
        }
    }

    /// The three tabs each browser opens, in order, and their websites.
    static let pages = [
        ("www.videos.test", "video.html", "Video page", "videos.test"),
        ("en.wiki.test", "wiki.html", "Wiki page", "wiki.test"), ("news.test", "news.html", "News page", "news.test"),
    ]

    func run() throws {
        if let missing = BrowserRig.missingRequirement() {
            throw HarnessError.missingProgram("the web benchmark cannot run: \(missing)")
        }
        guard let xdotool = ManagedDesktopRig.findProgram("xdotool") else {
            throw HarnessError.missingProgram("xdotool is not on PATH (apt-get install xdotool)")
        }
        let session = try PrivateXSession()
        defer { session.stop() }
        let temporary = FileManager.default.temporaryDirectory.appendingPathComponent(
            "screenward-bench-web-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: temporary) }
        let rig = try BrowserRig(temporary: temporary)
        defer { rig.remove() }
        let sentinel = try DemoApplications(display: session.display, windows: ["sentinel.Sentinel"])
        let agent = try AgentRun(
            display: session.display, home: temporary.appendingPathComponent("home"),
            environment: [
                "XDG_DATA_HOME": temporary.appendingPathComponent("data").path,
                "XDG_DATA_DIRS": "/usr/local/share:/usr/share",
            ])
        defer { agent.stop() }
        let titles = try TitleRecord(display: session.display)
        let driver = try FocusDriver(display: session.display)
        print(
            """
            Screenward web benchmark on \(session.display) (Xvfb + openbox), Chromium and Firefox ESR: \
            \(switches) tab switches each, \(shields) shields, \(navigations) navigations each, \(quiet) s of quiet
            """
        )

        let urls = Self.pages.map { "http://\($0.0):\(rig.port)/\($0.1)" }
        var browsers: [Browser] = []
        for (name, start, separator, modifier) in [
            ("Chromium", rig.chromium, " - ", "ctrl"), ("Firefox", rig.firefox, " — ", "alt"),
        ] {
            let process = try start(agent.environment, urls)
            let suffix = name == "Chromium" ? "Chromium" : "Mozilla Firefox"
            let id = try rig.window(
                titled: "\(Self.pages[0].2)\(separator)\(suffix)", display: session.display, xdotool: xdotool,
                or: process)
            browsers.append(
                Browser(
                    name: name, window: try windowID(id), windowHex: id, titleSuffix: separator + suffix,
                    tabModifier: modifier))
        }
        try rig.waitUntilConnected(["chromium", "firefox"])

        var figures: [String: Any] = ["date": ISO8601DateFormatter().string(from: Date())]
        var verdicts = Verdicts()
        let errors = try measureSwitches(
            browsers, sentinel: try windowID(sentinel.windows[0]), titles: titles, driver: driver, agent: agent,
            xdotool: xdotool, display: session.display)
        let (covered, uncovered, shown) = try measureShields(
            browsers, titles: titles, driver: driver, agent: agent, rig: rig, xdotool: xdotool, display: session.display
        )
        let wakeups = try measureQuiet(browsers[0], driver: driver, titles: titles, rig: rig)

        print("")
        for (name, label, samples) in [
            ("switch_error", "accounting error per tab switch, |ledger − truth|", errors.map(abs)),
            ("covered", "store change → open tab covered", covered),
            ("uncovered", "store change → open tab's page back", uncovered),
        ] {
            let sorted = samples.sorted()
            func p(_ q: Double) -> Double { percentile(q, of: sorted) }
            print(
                """
                  \(label), \(sorted.count) times (ms): p50 \(format(p(0.5), 1)), p90 \(format(p(0.9), 1)), p99 \
                \(format(p(0.99), 1)), max \(format(sorted.last!, 1))
                """
            )
            figures[name] = [
                "count": sorted.count, "p50_ms": p(0.5), "p90_ms": p(0.9), "p99_ms": p(0.99), "max_ms": sorted.last!,
            ]
        }
        let bias = errors.reduce(0, +) / Double(errors.count)
        print(
            """
              the ledger's visits are \(format(bias, 2)) ms \(bias >= 0 ? "longer" : "shorter") than the truth's \
            on average (signed)
            """
        )
        print("  navigations to the shielded website that showed it: \(shown) of \(navigations * browsers.count)")
        print("  the hosts' wakeups over \(quiet) s with nothing changing: \(wakeups)")
        figures["switch_error"] = (figures["switch_error"] as? [String: Any] ?? [:]).merging(["mean_signed_ms": bias]) {
            $1
        }
        figures["navigations"] = ["count": navigations * browsers.count, "shown": shown]
        figures["quiet"] = ["seconds": quiet, "host_wakeups": wakeups]
        verdicts.check(Targets.switchError, percentile(0.99, of: errors.map(abs).sorted()))
        verdicts.check(Targets.covered, percentile(0.99, of: covered.sorted()))
        verdicts.check(Targets.contentShown, Double(shown))
        verdicts.check(Targets.idleWakeups, Double(wakeups))
        verdicts.printLines()
        verdicts.record(in: &figures)
        let url = try writeFigures(figures, name: "web", to: output)
        print("Figures written to \(url.path)")
        try verdicts.exitIfMissed()
    }

    struct Browser {
        var name: String
        var window: WindowID
        var windowHex: String
        /// What the browser adds to a page's title in its window's (` - Chromium`).
        var titleSuffix: String
        /// With a tab's number, the key that shows that tab (Chromium: Ctrl+1, Firefox: Alt+1).
        var tabModifier: String
    }

    // MARK: Accounting

    /// The signed error of each visit (ms): the ledger's time for it less the truth's.
    private func measureSwitches(
        _ browsers: [Browser], sentinel: WindowID, titles: TitleRecord, driver: FocusDriver, agent: AgentRun,
        xdotool: URL, display: String
    ) throws -> [Double] {
        var errors: [Double] = []
        var generator = SystemRandomNumberGenerator()
        for browser in browsers {
            try driver.activate(browser.windowHex)
            // The agent has counted the first tab's website: the timeline starts after it.
            let focused = Date()
            try waitUntil("the agent counts \(browser.name)'s first tab") {
                let ledger = try? Ledger(url: agent.home.appendingPathComponent("ledger.sqlite"))
                return
                    (try? ledger?.recentUsage(since: focused.addingTimeInterval(-3600)).intervals.contains {
                        $0.isOpen && $0.webDomain != nil
                    }) == true
            }
            titles.watch(for: .milliseconds(300))
            let baseline = Date()
            var tab = try currentTab(of: browser, titles: titles)
            var visits: [(site: String, start: ContinuousClock.Instant)] = []
            for _ in 0..<switches {
                tab = (tab + 1) % Self.pages.count
                visits.append(
                    (
                        Self.pages[tab].3,
                        try switchTab(browser, to: tab, titles: titles, xdotool: xdotool, display: display)
                    ))
                titles.watch(for: .milliseconds(Int.random(in: 150...450, using: &generator)))
            }
            titles.update()
            driver.connection.requestActivation(of: sentinel)
            let end = try titles.waitForActivation(of: sentinel)
            titles.watch(for: .seconds(1))  // the ledger's writes land
            let truth = zip(visits, visits.dropFirst().map(\.start) + [end]).map { visit, next in
                (visit.site, (next - visit.start).milliseconds)
            }
            let counted = try visitsInLedger(agent, since: baseline)
            guard counted.map(\.site) == truth.map(\.0) else {
                throw HarnessError.failed(
                    """
                    \(browser.name): the ledger's visits (\(counted.count)) are not the timeline's \
                    (\(truth.count)): \(counted.map(\.site).prefix(12)) vs \(truth.map(\.0).prefix(12))
                    """
                )
            }
            errors += zip(counted, truth).map { $0.milliseconds - $1.1 }
            print("  \(browser.name): \(switches) switches, the ledger's visits against the titles' timeline")
        }
        return errors
    }

    /// Which of the three tabs `browser`'s window shows, by its title.
    private func currentTab(of browser: Browser, titles: TitleRecord) throws -> Int {
        titles.update()
        guard let title = titles.titles[browser.window],
            let index = Self.pages.firstIndex(where: { title == $0.2 + browser.titleSuffix })
        else {
            throw HarnessError.failed(
                """
                \(browser.name)'s window shows none of the benchmark's pages: \
                \(titles.titles[browser.window] ?? "no title")
                """
            )
        }
        return index
    }

    /// The key that shows tab `tab` (from 0), into the focused window; returns when its title
    /// became that tab's. (Not "next tab": Firefox may open a page of its own after the three.)
    private func switchTab(_ browser: Browser, to tab: Int, titles: TitleRecord, xdotool: URL, display: String) throws
        -> ContinuousClock.Instant
    {
        titles.update()
        let mark = titles.changes.count
        let key = try ChildProcess(
            xdotool, ["key", "\(browser.tabModifier)+\(tab + 1)"], environment: ["DISPLAY": display])
        key.closeInput()
        let change = try titles.waitForTitle(of: browser.window, after: mark) {
            $0 == Self.pages[tab].2 + browser.titleSuffix
        }
        _ = key.waitForExit(timeout: 10)
        return change.at
    }

    /// The ledger's visits to websites that started after `since`, in order: consecutive
    /// intervals on the same website are one visit (nothing ends a visit but a switch).
    private func visitsInLedger(_ agent: AgentRun, since: Date) throws -> [(site: String, milliseconds: Double)] {
        let ledger = try Ledger(url: agent.home.appendingPathComponent("ledger.sqlite"))
        var visits: [(site: String, milliseconds: Double)] = []
        for interval in try ledger.recentUsage(since: since).intervals where interval.startedAt >= since {
            guard let site = interval.webDomain else { continue }
            if visits.last?.site == site {
                visits[visits.count - 1].milliseconds += interval.duration * 1000
            } else {
                visits.append((site, interval.duration * 1000))
            }
        }
        return visits
    }

    // MARK: Shields

    /// Store change → each window's title the shield page's (ms), and back; then how many
    /// navigations to the shielded website showed it.
    private func measureShields(
        _ browsers: [Browser], titles: TitleRecord, driver: FocusDriver, agent: AgentRun, rig: BrowserRig, xdotool: URL,
        display: String
    ) throws -> (covered: [Double], uncovered: [Double], shown: Int) {
        // Each window back on its first tab (the shielded website).
        for browser in browsers {
            try driver.activate(browser.windowHex)
            while try currentTab(of: browser, titles: titles) != 0 {
                let next = (try currentTab(of: browser, titles: titles) + 1) % Self.pages.count
                _ = try switchTab(browser, to: next, titles: titles, xdotool: xdotool, display: display)
            }
        }
        let client = ServiceClient(
            transport: SocketTransport(path: agent.home.appendingPathComponent("agent.sock").path),
            bundleIdentifier: "org.screenward.bench.web")
        ScreenwardApp.client = client
        try agent.allowAccess("org.screenward.bench.web")
        guard try client.call(AuthorizationMethods.request, .individual) == .approved else {
            throw HarnessError.failed("the benchmark's app was not authorised")
        }
        let selection = try client.call(
            AuthorizationMethods.issueSelection, SelectionRequest(webDomains: [Self.pages[0].3]))
        let store = ManagedSettingsStore(named: .init("bench-web"))
        let page = Self.pages[0].2
        var covered: [Double] = []
        var uncovered: [Double] = []
        var coveredBy: [String: [Double]] = [:]
        for _ in 0..<shields {
            for shielding in [true, false] {
                titles.update()
                let mark = titles.changes.count
                let start = ContinuousClock.now
                store.shield.webDomains = shielding ? selection.webDomainTokens : nil
                for browser in browsers {
                    let change = try titles.waitForTitle(of: browser.window, after: mark) { title in
                        shielding ? Self.isShieldTitle(title, of: browser) : title == page + browser.titleSuffix
                    }
                    let milliseconds = (change.at - start).milliseconds
                    if shielding {
                        covered.append(milliseconds)
                        coveredBy[browser.name, default: []].append(milliseconds)
                    } else {
                        uncovered.append(milliseconds)
                    }
                }
                titles.watch(for: .milliseconds(300))
            }
        }
        print("  \(shields) store changes shielding \(Self.pages[0].3) and back, over a tab open on it in each browser")
        for (name, samples) in coveredBy.sorted(by: { $0.key < $1.key }) {
            let sorted = samples.sorted()
            print(
                """
                    covered in \(name) (ms): p50 \(format(percentile(0.5, of: sorted), 1)), max \
                \(format(sorted.last!, 1))
                """
            )
        }

        // Navigations to the shielded website, from another website's page.
        store.shield.webDomains = selection.webDomainTokens
        var shown = 0
        for browser in browsers {
            try driver.activate(browser.windowHex)
            for index in 0..<navigations {
                try navigate(
                    browser, to: "http://en.wiki.test:\(rig.port)/wiki.html", titles: titles, xdotool: xdotool,
                    display: display
                ) { $0 == "Wiki page" + browser.titleSuffix }
                let asked = rig.requests(for: "/video.html")
                titles.update()
                let mark = titles.changes.count
                let host = index % 2 == 0 ? "m.videos.test" : "www.videos.test"
                try navigate(
                    browser, to: "http://\(host):\(rig.port)/video.html", titles: titles, xdotool: xdotool,
                    display: display
                ) { Self.isShieldTitle($0, of: browser) }
                titles.watch(for: .milliseconds(300))
                let showed =
                    titles.titles(of: browser.window, after: mark).contains { $0.hasPrefix(page) }
                    || rig.requests(for: "/video.html") > asked
                if showed { shown += 1 }
            }
        }
        store.shield.webDomains = nil
        print("  \(navigations) navigations to \(Self.pages[0].3) in each browser while it is shielded")
        return (covered, uncovered, shown)
    }

    /// The shield page's title, as it is first parsed and once the page has its look.
    static func isShieldTitle(_ title: String, of browser: Browser) -> Bool {
        title == "Restricted" + browser.titleSuffix || title.hasSuffix("(restricted)" + browser.titleSuffix)
    }

    /// Types `url` into the address bar and goes there; returns once the title `arrived` says so.
    private func navigate(
        _ browser: Browser, to url: String, titles: TitleRecord, xdotool: URL, display: String,
        arrived: (String) -> Bool
    ) throws {
        titles.update()
        let mark = titles.changes.count
        for step in [["key", "ctrl+l"], ["type", "--delay", "2", url], ["key", "Return"]] {
            let keys = try ChildProcess(xdotool, step, environment: ["DISPLAY": display])
            keys.closeInput()
            guard keys.waitForExit(timeout: 30) == 0 else {
                throw HarnessError.failed("xdotool \(step): \(keys.standardError)")
            }
            titles.watch(for: .milliseconds(100))
        }
        _ = try titles.waitForTitle(of: browser.window, after: mark, arrived)
    }

    // MARK: Quiet

    /// The hosts' context switches (every thread's, voluntary or not) over `quiet` seconds
    /// with `browser`'s window focused and nothing changing.
    private func measureQuiet(_ browser: Browser, driver: FocusDriver, titles: TitleRecord, rig: BrowserRig) throws
        -> Int
    {
        try driver.activate(browser.windowHex)
        titles.watch(for: .seconds(2))  // what the focus change set off is over
        let hosts = RunningPrograms.processes(
            running: try ProjectPrograms.url(of: "screenward-web-host").resolvingSymlinksInPath().path
        ).map(\.pid)
        guard hosts.count >= 2 else {
            throw HarnessError.failed(
                "expected a host per browser, found \(hosts.count): \(rig.hostLines.suffix(1500))")
        }
        let before = hosts.map(Self.contextSwitches)
        titles.watch(for: .seconds(quiet))
        let after = hosts.map(Self.contextSwitches)
        print("  the hosts (pids \(hosts.map(String.init).joined(separator: ", "))) over \(quiet) s of quiet")
        return zip(before, after).reduce(0) { $0 + max(0, $1.1 - $1.0) }
    }

    /// Every thread's context switches so far (0 for a process gone).
    static func contextSwitches(of pid: Int32) -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.reduce(0) { total, task in
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8) else {
                return total
            }
            return total
                + status.split(separator: "\n").reduce(0) { sum, line in
                    guard line.hasPrefix("voluntary_ctxt_switches:") || line.hasPrefix("nonvoluntary_ctxt_switches:")
                    else { return sum }
                    return sum
                        + (line.split(separator: ":").last.flatMap {
                            Int($0.trimmingCharacters(in: .whitespaces))
                        } ?? 0)
                }
        }
    }

    private func waitUntil(_ what: String, timeout: TimeInterval = 30, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            guard Date() < deadline else { throw HarnessError.timedOut(what) }
            Thread.sleep(forTimeInterval: 0.1)
        }
    }
}
