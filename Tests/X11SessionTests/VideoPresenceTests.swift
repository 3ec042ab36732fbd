import Foundation
import SessionHarness
import TestSupport
import XCTest

/// A playing video counts with nobody touching the keyboard or the mouse, in Debian's real
/// mpv, Chromium and Firefox ESR (a muted, looping `<video autoplay>` from a local HTTP server,
/// for its website too); a still xterm with a blinking cursor and a still web page stop at the
/// idle threshold, at the last input. The agent runs with a 3-second threshold, so that what
/// only input would count is plainly apart from the wall time.
final class VideoPresenceTests: XSessionTestCase {
    static let threshold = 3.0
    /// How long each player plays with no input.
    static let playing = 20.0
    private var rig: BrowserRig?

    override func tearDownWithError() throws {
        rig?.remove()
        try super.tearDownWithError()
    }

    func testAVideoInMpvCountsWithoutInput() throws {
        let mpv = try requireProgram("mpv", package: "mpv")
        let video = try makeVideo(in: temporary)
        let session = try startXSession()
        defer { session.stop() }
        let agent = try startAgent(display: session.display)
        defer { agent.stop() }
        // No sound card here: mpv plays the picture alone.
        let player = try ChildProcess(
            mpv, ["--loop", "--no-audio", "--vo=x11", "--no-terminal", video.path],
            environment: ["DISPLAY": session.display, "HOME": temporary.path])
        defer { player.stop() }
        try waitForFocus(agent)
        try expectCounted(agent, display: session.display, what: "mpv")
    }

    /// A blinking cursor (xterm -bc) is one cell drawn every 0.9 s: no motion. A video playing in
    /// another window (mpv, told not to touch the screen saver) is not the focused window's.
    func testAStillXtermStopsAtTheLastInputBesideAPlayingVideo() throws {
        let xterm = try requireProgram("xterm", package: "xterm")
        let mpv = try requireProgram("mpv", package: "mpv")
        let video = try makeVideo(in: temporary)
        let session = try startXSession()
        defer { session.stop() }
        let agent = try startAgent(display: session.display)
        defer { agent.stop() }
        let player = try ChildProcess(
            mpv,
            [
                "--loop", "--no-audio", "--vo=x11", "--no-terminal", "--stop-screensaver=no", "--geometry=+0+0",
                video.path,
            ], environment: ["DISPLAY": session.display, "HOME": temporary.path])
        defer { player.stop() }
        try waitForFocus(agent, containing: "mpv")
        let terminal = try ChildProcess(
            xterm, ["-bc", "-geometry", "80x24-0-0"], environment: ["DISPLAY": session.display])
        defer { terminal.stop() }
        try waitForFocus(agent, containing: "xterm")
        let before = try agent.usage().totalSeconds
        let started = Date()
        try xdotool(["type", "--delay", "150", "echo still"], display: session.display)
        let typed = Date().timeIntervalSince(started)
        Thread.sleep(forTimeInterval: 10)
        let counted = try agent.usage().totalSeconds - before
        print("still xterm beside a video: \(counted) s counted, \(typed) s of typing, then 10 s still")
        // The count ends at the last key: a blinking cursor or the video beside it counted would add the 10 s.
        XCTAssertEqual(counted, typed, accuracy: 0.5, agent.process.standardError.suffix(3000).description)
        XCTAssertTrue(player.isRunning, "mpv played all along: \(player.standardError.suffix(1000))")
    }

    /// A still window whose process holds the screen saver off (XScreenSaverSuspend, as the browsers
    /// do while a video with sound plays) counts until it lets go; another process's hold does not
    /// count for it; a blanked screen never counts, held off or not.
    func testAnApplicationHoldingTheScreenSaverOffCountsUntilItLetsGo() throws {
        let python = try requireProgram("python3", package: "python3")
        let session = try startXSession()
        defer { session.stop() }
        let agent = try startAgent(display: session.display, verbose: true)
        defer { agent.stop() }
        let holder = try ScreenSaverClient(python: python, display: session.display, title: "Holder")
        try waitForFocus(agent)
        let driver = try FocusDriver(display: session.display)
        try driver.activate(holder.window)

        func counted(over seconds: Double, after command: () throws -> Void) throws -> Double {
            let before = try agent.usage().totalSeconds
            try command()
            Thread.sleep(forTimeInterval: seconds)
            return try agent.usage().totalSeconds - before
        }
        try xdotool(["mousemove", "0", "0"], display: session.display)
        let held = try counted(over: 12) { try holder.send("suspend") }
        print("held off: \(held) s counted over 12 s")
        XCTAssertGreaterThan(held, Self.threshold + 5, "the hold did not keep the count going")
        XCTAssertEqual(held, 12, accuracy: 1, agent.process.standardError.suffix(3000).description)

        // Let go: the count ends there.
        let released = try counted(over: 6) { try holder.send("resume") }
        print("let go: \(released) s counted over 6 s")
        XCTAssertLessThan(released, 0.5, agent.process.standardError.suffix(3000).description)

        // Another process's hold is not the focused window's.
        let other = try ScreenSaverClient(python: python, display: session.display, title: "Other")
        try driver.activate(other.window)  // the window manager focuses a new window: wait for it, then go back
        try driver.activate(holder.window)
        try xdotool(["mousemove", "10", "10"], display: session.display)
        let elsewhere = try counted(over: 8) { try other.send("suspend") }
        print("held by another process: \(elsewhere) s counted over 8 s")
        XCTAssertLessThan(elsewhere, 1, agent.process.standardError.suffix(3000).description)

        // Held, then the screen blanked: nothing counts while it is blank.
        try holder.send("suspend")
        try xdotool(["mousemove", "20", "20"], display: session.display)
        Thread.sleep(forTimeInterval: 1)
        let blank = try counted(over: 6) { try other.send("blank") }
        print("held and blanked: \(blank) s counted over 6 s")
        XCTAssertLessThan(blank, 0.5, agent.process.standardError.suffix(3000).description)
        XCTAssertTrue(agent.process.standardError.contains("the screen saver is on"))
    }

    func testAVideoInChromiumCountsForItsWebsiteAndAStillPageStops() throws {
        try browserCase(chromium: true)
    }

    func testAVideoInFirefoxCountsForItsWebsiteAndAStillPageStops() throws {
        try browserCase(chromium: false)
    }

    // MARK: The browsers

    private func browserCase(chromium: Bool) throws {
        if let missing = BrowserRig.missingRequirement() { try cannotRun(missing) }
        let xdotoolURL = try requireTool("xdotool")
        let rig = try BrowserRig(temporary: temporary)
        self.rig = rig
        let pages = rig.folder.appendingPathComponent("pages")
        _ = try makeVideo(in: pages)
        // The page is titled "Clip page" once its video plays. A fresh Chromium profile that
        // installs the forced extension at its first start may fail a video loading meanwhile
        // (MEDIA_ERR_SRC_NOT_SUPPORTED without a request, about one start in three, more under
        // load): the page loads it again, as a person would reload.
        try """
        <!doctype html><html><head><title>Clip loading</title></head><body>
        <video id="clip" src="clip.webm" autoplay muted loop width="320" height="240"></video>
        <script>
        const clip = document.getElementById("clip");
        clip.addEventListener("playing", () => { document.title = "Clip page"; });
        clip.addEventListener("error", () => setTimeout(() => { clip.load(); clip.play(); }, 500));
        </script></body></html>
        """
        .write(to: pages.appendingPathComponent("clip.html"), atomically: true, encoding: .utf8)
        try "<!doctype html><html><head><title>Still page</title></head><body><h1>Still page</h1></body></html>\n"
            .write(to: pages.appendingPathComponent("still.html"), atomically: true, encoding: .utf8)
        let session = try startXSession()
        defer { session.stop() }
        let agent = try startAgent(display: session.display, verbose: true)
        defer { agent.stop() }
        let urls = ["http://www.videos.test:\(rig.port)/clip.html", "http://news.test:\(rig.port)/still.html"]
        let browser =
            chromium
            ? try rig.chromium(environment: agent.environment, urls: urls)
            : try rig.firefox(environment: agent.environment, urls: urls)
        let suffix = chromium ? " - Chromium" : " — Mozilla Firefox"
        let window = try rig.window(
            titled: "Clip page\(suffix)", display: session.display, xdotool: xdotoolURL, or: browser)
        try FocusDriver(display: session.display).activate(window)
        try rig.waitUntilConnected([chromium ? "chromium" : "firefox"])
        try waitForWebsite("videos.test", agent: agent)
        let name = chromium ? "Chromium" : "Firefox ESR"
        let (counted, _, siteCounted) = try expectCounted(agent, display: session.display, what: name)
        XCTAssertEqual(siteCounted, counted, accuracy: 0.2, "\(name): the video's time is its website's")

        // The still page: the key that shows it is the last input.
        let before = try webSeconds(agent)
        let started = Date()
        try xdotool(["key", chromium ? "ctrl+2" : "alt+2"], display: session.display)
        _ = try rig.window(titled: "Still page\(suffix)", display: session.display, xdotool: xdotoolURL, or: browser)
        let shown = Date().timeIntervalSince(started)
        Thread.sleep(forTimeInterval: 8)
        let still = try webSeconds(agent)
        let stillCounted = still.total - before.total
        print("\(name), still page: \(stillCounted) s counted, 8 s still after \(shown) s to show it")
        // The tab's switch may draw for a few frames (a run of motion, up to a second) after the key.
        XCTAssertLessThanOrEqual(
            stillCounted, shown + 1,
            "\(name): a still page stops at the last input; "
                + agent.process.standardError.suffix(3000))
        // The video counted until the key; the still page's website, from its title to the key's release.
        XCTAssertLessThanOrEqual((still.sites["news.test"] ?? 0) - (before.sites["news.test"] ?? 0), stillCounted)
    }

    // MARK: Support

    /// A 10-second test picture (ffmpeg's testsrc, 320×240, 25 frames a second, VP8), `clip.webm` in `folder`.
    @discardableResult
    private func makeVideo(in folder: URL) throws -> URL {
        let ffmpeg = try requireProgram("ffmpeg", package: "ffmpeg")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let video = folder.appendingPathComponent("clip.webm")
        let encode = try ChildProcess(
            ffmpeg,
            [
                "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=25",
                "-t", "10", "-c:v", "libvpx", "-b:v", "300k", "-pix_fmt", "yuv420p", video.path,
            ])
        encode.closeInput()
        guard encode.waitForExit(timeout: 60) == 0 else {
            throw HarnessError.failed("ffmpeg could not make the video: \(encode.standardError)")
        }
        return video
    }

    private func startAgent(display: String, verbose: Bool = false) throws -> AgentRun {
        try AgentRun(
            display: display, home: home, idleThreshold: Self.threshold,
            environment: try catalogEnvironment(entries: [:]), verbose: verbose)
    }

    /// Waits until the agent says an application has the focus (one whose id contains `name`).
    private func waitForFocus(_ agent: AgentRun, containing name: String = "") throws {
        let deadline = Date().addingTimeInterval(30)
        var last = ""
        while Date() < deadline {
            let text = (try? agent.cli(["status", "--json"])) ?? ""
            if let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
                let focused = object["focused_id"] as? String
            {
                last = focused
                if name.isEmpty || focused.lowercased().contains(name) { return }
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        throw HarnessError.timedOut(
            "no application\(name.isEmpty ? "" : " named \(name)") took the focus (last \(last)): "
                + agent.process.standardError.suffix(2000))
    }

    private func waitForWebsite(_ site: String, agent: AgentRun) throws {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if agent.process.standardError.contains(" on \(site)")
                || agent.process.standardError.contains("website: \(site)")
            {
                return
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw HarnessError.timedOut("the agent never saw \(site): \(agent.process.standardError.suffix(3000))")
    }

    /// One input (the pointer moved), then `playing` seconds without any: the count must follow
    /// the wall clock within a second. Input alone would stop it `threshold` after that input.
    @discardableResult
    private func expectCounted(_ agent: AgentRun, display: String, what: String) throws -> (
        counted: Double, wall: Double, site: Double
    ) {
        try xdotool(["mousemove", "0", "0"], display: display)
        Thread.sleep(forTimeInterval: 1.5)  // the video's motion is seen meanwhile
        let before = try webSeconds(agent)
        let start = Date()
        Thread.sleep(forTimeInterval: Self.playing)
        let after = try webSeconds(agent)
        let wall = Date().timeIntervalSince(start)
        let counted = after.total - before.total
        let site = (after.sites["videos.test"] ?? 0) - (before.sites["videos.test"] ?? 0)
        print("\(what): \(counted) s counted over \(wall) s of a video with no input")
        // The positive control: what input alone counts ends `threshold` after the last input.
        XCTAssertGreaterThan(counted, Self.threshold + 10, "\(what): the count stopped with the input")
        XCTAssertEqual(counted, wall, accuracy: 1, "\(what): \(agent.process.standardError.suffix(3000))")
        return (counted, wall, site)
    }

    /// The total counted and each website's, now (`screenward usage --web --json`).
    private func webSeconds(_ agent: AgentRun) throws -> (total: Double, sites: [String: Double]) {
        let total = try agent.usage().totalSeconds
        let text = try agent.cli(["usage", "--web", "--json", "--since", "2000-01-01"])
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            let sites = object["websites"] as? [[String: Any]]
        else {
            throw HarnessError.failed("not the JSON of usage --web: \(text)")
        }
        var seconds: [String: Double] = [:]
        for site in sites { seconds[site["domain"] as? String ?? "?"] = site["seconds"] as? Double }
        return (total, seconds)
    }

    private func xdotool(_ arguments: [String], display: String) throws {
        let run = try ChildProcess(try requireTool("xdotool"), arguments, environment: ["DISPLAY": display])
        run.closeInput()
        guard run.waitForExit(timeout: 30) == 0 else {
            throw HarnessError.failed("xdotool \(arguments): \(run.standardError)")
        }
    }
}

/// A plain X client with one still window, in a process of its own (Python's ctypes over Xlib and
/// libXss): on `suspend` or `resume` it calls XScreenSaverSuspend, on `blank` it turns the
/// screen saver on (XForceScreenSaver), and says `ok`.
private final class ScreenSaverClient {
    let process: ChildProcess
    let window: String

    init(python: URL, display: String, title: String) throws {
        process = try ChildProcess(
            python,
            [
                "-c",
                """
                import ctypes, sys
                x = ctypes.CDLL("libX11.so.6"); xss = ctypes.CDLL("libXss.so.1")
                x.XOpenDisplay.restype = ctypes.c_void_p
                x.XDefaultRootWindow.argtypes = [ctypes.c_void_p]; x.XDefaultRootWindow.restype = ctypes.c_ulong
                x.XCreateSimpleWindow.argtypes = [ctypes.c_void_p, ctypes.c_ulong] + [ctypes.c_int] * 2 \\
                    + [ctypes.c_uint] * 3 + [ctypes.c_ulong] * 2
                x.XCreateSimpleWindow.restype = ctypes.c_ulong
                for f in (x.XMapWindow, x.XStoreName): f.argtypes = [ctypes.c_void_p, ctypes.c_ulong] + \\
                    ([ctypes.c_char_p] if f is x.XStoreName else [])
                x.XFlush.argtypes = [ctypes.c_void_p]; x.XForceScreenSaver.argtypes = [ctypes.c_void_p, ctypes.c_int]
                xss.XScreenSaverSuspend.argtypes = [ctypes.c_void_p, ctypes.c_int]
                d = x.XOpenDisplay(None)
                w = x.XCreateSimpleWindow(d, x.XDefaultRootWindow(d), 0, 0, 400, 300, 0, 0, 0xffffff)
                x.XStoreName(d, w, sys.argv[1].encode()); x.XMapWindow(d, w); x.XFlush(d)
                print(hex(w), flush=True)
                for line in sys.stdin:
                    command = line.strip()
                    if command in ("suspend", "resume"): xss.XScreenSaverSuspend(d, 1 if command == "suspend" else 0)
                    elif command == "blank": x.XForceScreenSaver(d, 1)
                    x.XFlush(d); print("ok", flush=True)
                """, title,
            ], environment: ["DISPLAY": display])
        guard let line = try process.waitForOutputLines(1, timeout: 10).first, line.hasPrefix("0x") else {
            throw HarnessError.failed("the X client did not start: \(process.standardError)")
        }
        window = line
    }

    func send(_ command: String) throws {
        let before = process.outputLines.count
        process.send(command)
        _ = try process.waitForOutputLines(before + 1, timeout: 10)
    }

    deinit {
        process.closeInput()
        process.stop()
    }
}
