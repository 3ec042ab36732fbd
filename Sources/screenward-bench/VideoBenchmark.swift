import ArgumentParser
import Foundation
import ScreenwardCore
import SessionHarness
import X11Session

/// A video playing with no input, in Debian's real mpv, Chromium and Firefox ESR under Xvfb +
/// openbox, with the real agent at the idle threshold people run it with (120 s): one movement
/// of the pointer, then minutes without any. The agent must count the wall time (within a
/// second), where input alone would stop the threshold after that movement; and watching for
/// motion must cost the agent little: its CPU time over each run (utime + stime from
/// /proc/PID/stat) against the run's wall time.
///
/// The browsers play a muted, looping `<video autoplay>` (ffmpeg's test picture, 320×240, 25
/// frames a second) from a local HTTP server under a host name of its own, with Screenward's
/// extension installed (`BrowserRig`, root), so their time is their website's too; mpv plays
/// the same file, without sound (there is no sound card here).
struct VideoBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "video",
        abstract:
            """
            A video with no input in real mpv, Chromium and Firefox ESR: counted against the wall time, and the \
            agent's CPU while it plays (root).
            """
    )

    enum Targets {
        static func counted(_ player: String) -> Target {
            let figure = "\(player): |counted − wall| over a video with no input"
            return Target(figure: figure, limit: 1, unit: "s", inclusive: true, digits: 2)
        }
        static let cpu = Target(
            figure: "the agent's CPU while a video plays (most of the three)", limit: 1, unit: "% of a core",
            inclusive: true, digits: 3)
    }

    @Option(help: "Seconds each player plays with no input.")
    var seconds = 180.0
    @Option(name: .customLong("idle-threshold"), help: "The agent's idle threshold, seconds.")
    var idleThreshold = 120.0
    @Option(help: "Directory the figures are written to, as JSON.")
    var output = "bench-results"
    @Option(help: "The players, of mpv, chromium and firefox, comma-separated.")
    var players = "mpv,chromium,firefox"
    @Flag(help: "Run the agent with --verbose and print the end of its log after each player (costs it CPU).")
    var trace = false

    func validate() throws {
        guard seconds >= 10, idleThreshold >= 1 else {
            throw ValidationError("--seconds ≥ 10, --idle-threshold ≥ 1")
        }
        guard !chosen.isEmpty, chosen.isSubset(of: ["mpv", "chromium", "firefox"]) else {
            throw ValidationError("--players: mpv, chromium, firefox")
        }
    }

    var chosen: Set<String> { Set(players.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }) }

    struct Run {
        var player: String
        var counted: Double
        var wall: Double
        var website: Double?
        var cpuSeconds: Double
        var wakeups: Int
        var cpuPercent: Double { 100 * cpuSeconds / wall }
    }

    func run() throws {
        if let missing = BrowserRig.missingRequirement() {
            throw HarnessError.missingProgram("the video benchmark cannot run: \(missing)")
        }
        var tools: [String: URL] = [:]
        for (program, package) in [("xdotool", "xdotool"), ("mpv", "mpv"), ("ffmpeg", "ffmpeg")] {
            guard let found = ManagedDesktopRig.findProgram(program) else {
                throw HarnessError.missingProgram("\(program) is not on PATH (apt-get install \(package))")
            }
            tools[program] = found
        }
        let session = try PrivateXSession()
        defer { session.stop() }
        let temporary = FileManager.default.temporaryDirectory.appendingPathComponent(
            "screenward-bench-video-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: temporary) }
        let rig = try BrowserRig(temporary: temporary)
        defer { rig.remove() }
        let pages = rig.folder.appendingPathComponent("pages")
        let video = pages.appendingPathComponent("clip.webm")
        try Self.encode(video, ffmpeg: tools["ffmpeg"]!)
        try """
        <!doctype html><html><head><title>Clip page</title></head><body>
        <video src="clip.webm" autoplay muted loop width="320" height="240"></video></body></html>
        """
        .write(to: pages.appendingPathComponent("clip.html"), atomically: true, encoding: .utf8)
        let agent = try AgentRun(
            display: session.display, home: temporary.appendingPathComponent("home"), idleThreshold: idleThreshold,
            environment: [
                "XDG_DATA_HOME": temporary.appendingPathComponent("data").path,
                "XDG_DATA_DIRS": "/usr/local/share:/usr/share",
            ], verbose: trace)
        defer { agent.stop() }
        let driver = try FocusDriver(display: session.display)
        print(
            """
            Screenward video benchmark on \(session.display) (Xvfb + openbox): \
            \(["mpv", "chromium", "firefox"].filter(chosen.contains).joined(separator: ", ")) each play \
            \(Int(seconds)) s with no input; the agent's idle threshold \(Int(idleThreshold)) s
            """
        )

        var runs: [Run] = []
        if chosen.contains("mpv") {
            let mpv = try ChildProcess(
                tools["mpv"]!, ["--loop", "--no-audio", "--vo=x11", "--no-terminal", "--title=Clip mpv", video.path],
                environment: ["DISPLAY": session.display, "HOME": temporary.path])
            let mpvWindow = try rig.window(
                titled: "Clip mpv", display: session.display, xdotool: tools["xdotool"]!, or: mpv)
            runs.append(
                try play("mpv", window: mpvWindow, site: nil, driver: driver, agent: agent, tools: tools, session))
            mpv.stop()
        }
        // The browsers, one after the other.
        for (name, start, suffix, extensionName) in [
            ("Chromium", rig.chromium, " - Chromium", "chromium"),
            ("Firefox ESR", rig.firefox, " — Mozilla Firefox", "firefox"),
        ] where chosen.contains(extensionName) {
            let browser = try start(agent.environment, ["http://www.videos.test:\(rig.port)/clip.html"])
            let window = try rig.window(
                titled: "Clip page\(suffix)", display: session.display, xdotool: tools["xdotool"]!, or: browser)
            do {
                try rig.waitUntilConnected([extensionName])
            } catch {
                throw HarnessError.failed("\(error); \(name) said: \(browser.standardError.suffix(2000))")
            }
            runs.append(
                try play(name, window: window, site: "videos.test", driver: driver, agent: agent, tools: tools, session)
            )
            browser.stop(grace: 3)
        }

        var figures: [String: Any] = [
            "date": ISO8601DateFormatter().string(from: Date()), "seconds": seconds, "idle_threshold": idleThreshold,
        ]
        var verdicts = Verdicts()
        print("")
        print(
            "  player        counted (s)   wall (s)   error (s)   website (s)   agent CPU (s)   % of a core   wakeups/s"
        )
        for run in runs {
            let player = run.player.padding(toLength: 12, withPad: " ", startingAt: 0)
            let website = run.website.map { format($0, 2) } ?? "-"
            print(
                """
                  \(player)  \(format(run.counted, 2).leftPadded(11))  \(format(run.wall, 2).leftPadded(9))  \
                \(format(run.counted - run.wall, 2).leftPadded(10))  \(website.leftPadded(12))  \
                \(format(run.cpuSeconds, 3).leftPadded(14))  \(format(run.cpuPercent, 3).leftPadded(12))  \
                \(format(Double(run.wakeups) / run.wall, 2).leftPadded(10))
                """
            )
            figures[run.player] = [
                "counted_s": run.counted, "wall_s": run.wall, "error_s": run.counted - run.wall,
                "website_s": run.website as Any, "agent_cpu_s": run.cpuSeconds, "agent_cpu_percent": run.cpuPercent,
                "agent_wakeups_per_s": Double(run.wakeups) / run.wall,
            ]
            verdicts.check(Targets.counted(run.player), abs(run.counted - run.wall))
        }
        print(
            """
              (input alone would have stopped each count \(Int(idleThreshold)) s after the pointer moved, at the \
            start of the run)
            """
        )
        verdicts.check(Targets.cpu, runs.map(\.cpuPercent).max() ?? 0)
        verdicts.printLines()
        verdicts.record(in: &figures)
        let url = try writeFigures(figures, name: "video", to: output)
        print("Figures written to \(url.path)")
        try verdicts.exitIfMissed()
    }

    /// Focuses `window`, moves the pointer once, then lets the video play `seconds` with no input.
    private func play(
        _ player: String, window: String, site: String?, driver: FocusDriver, agent: AgentRun, tools: [String: URL],
        _ session: PrivateXSession
    ) throws -> Run {
        try driver.activate(window)
        let move = try ChildProcess(
            tools["xdotool"]!, ["mousemove", "0", "0"], environment: ["DISPLAY": session.display])
        move.closeInput()
        _ = move.waitForExit(timeout: 10)
        Thread.sleep(forTimeInterval: 2)  // the motion is seen, the website is reported
        let meter = ProcessMeter(pid: agent.process.pid)
        let before = try usage(agent, site: site)
        let cpuBefore = try Self.cpuSeconds(of: agent.process.pid)
        let switchesBefore = try meter.sample()
        let start = Date()
        Thread.sleep(forTimeInterval: seconds)
        let after = try usage(agent, site: site)
        let cpuAfter = try Self.cpuSeconds(of: agent.process.pid)
        let wakeups = ProcessMeter.delta(from: switchesBefore, to: try meter.sample()).wakeups
        let wall = Date().timeIntervalSince(start)
        let run = Run(
            player: player, counted: after.total - before.total, wall: wall,
            website: site.map { _ in (after.site ?? 0) - (before.site ?? 0) }, cpuSeconds: cpuAfter - cpuBefore,
            wakeups: wakeups)
        if trace { print(agent.process.standardError.suffix(4000)) }
        print(
            """
              \(player): \(format(run.counted, 2)) s counted over \(format(wall, 2)) s with no input; the agent \
            used \(format(run.cpuSeconds, 3)) s of CPU
            """
        )
        return run
    }

    /// The total counted, and `site`'s, now (`screenward usage --web --json`).
    private func usage(_ agent: AgentRun, site: String?) throws -> (total: Double, site: Double?) {
        let total = try agent.usage().totalSeconds
        guard let site else { return (total, nil) }
        let text = try agent.cli(["usage", "--web", "--json", "--since", "2000-01-01"])
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            let sites = object["websites"] as? [[String: Any]]
        else { throw HarnessError.failed("not the JSON of usage --web: \(text)") }
        return (total, sites.first { $0["domain"] as? String == site }?["seconds"] as? Double ?? 0)
    }

    /// The process's CPU time so far, user and system (fields 14 and 15 of /proc/PID/stat, in clock ticks).
    static func cpuSeconds(of pid: Int32) throws -> Double {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // The command name is in parentheses and may hold spaces: count fields after its last ')'.
        guard let close = stat.lastIndex(of: ")") else { throw HarnessError.failed("unreadable /proc/\(pid)/stat") }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // fields[0] is the state (field 3); utime is field 14, stime 15.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else {
            throw HarnessError.failed("unreadable /proc/\(pid)/stat: \(stat)")
        }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    static func encode(_ video: URL, ffmpeg: URL) throws {
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
    }
}
