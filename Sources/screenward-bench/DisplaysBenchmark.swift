import ArgumentParser
import Foundation
import SessionDisplay
import SessionHarness
import WaylandSession
import X11Session

/// The agent on its two kinds of display, side by side in one run: X11 (Xvfb + openbox, the
/// reference) and a wlroots compositor (sway, headless, as a real account, since sway will not
/// run as root). For each: a focus change → the agent counting the new window; a shielded app's
/// window → its shield drawn; and the agent's peak RSS.
///
/// Each time is from the moment the benchmark asks for the change (X11: the activation request,
/// or the window's class set to the shielded app's; sway: the IPC command that focuses it) to
/// the agent's log line that it counted it, or drew the shield, to the log's millisecond.
struct DisplaysBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "displays",
        abstract: "The agent on X11 and on sway side by side: focus → counted, shielded → shield drawn, memory.")

    /// The goal the Wayland work set: a shield within 10 ms on wlroots as on X11; a focus
    /// change counted within a frame.
    enum Targets {
        static let x11Focus = Target(figure: "X11: focus change → counted, p99", limit: 16, unit: "ms", digits: 1)
        static let swayFocus = Target(figure: "sway: focus change → counted, p99", limit: 16, unit: "ms", digits: 1)
        static let x11Shield = Target(figure: "X11: shielded window → shield drawn, p99", limit: 10, unit: "ms")
        static let swayShield = Target(
            figure: "sway: shielded window focused → shield drawn, p99", limit: 10, unit: "ms")
    }

    @Option(help: "Focus changes measured on each display.")
    var switches = 100

    @Option(help: "Shields measured on each display.")
    var shields = 20

    @Option(help: "Directory the figures are written to, as JSON.")
    var output = "bench-results"

    func run() throws {
        guard geteuid() == 0 else {
            throw ValidationError(
                "the displays benchmark makes a real account for sway (which refuses root): run it as root")
        }
        print("Screenward displays benchmark: \(switches) focus changes and \(shields) shields on each display")
        var figures: [String: Any] = ["date": ISO8601DateFormatter().string(from: Date())]
        var verdicts = Verdicts()
        let x11 = try measureX11()
        let sway = try measureSway()
        for (name, label, samples, target) in [
            ("x11_focus", "X11: focus change → counted", x11.focus, Targets.x11Focus),
            ("sway_focus", "sway: focus change → counted", sway.focus, Targets.swayFocus),
            ("x11_shield", "X11: shielded window → shield drawn", x11.shield, Targets.x11Shield),
            ("sway_shield", "sway: shielded window focused → shield drawn", sway.shield, Targets.swayShield),
        ] {
            let sorted = samples.sorted()
            func percentile(_ p: Double) -> Double { screenward_bench.percentile(p, of: sorted) }
            print(
                """
                  \(label), \(sorted.count) times (ms): p50 \(format(percentile(0.5), 1)), p99 \
                \(format(percentile(0.99), 1)), max \(format(sorted.last!, 1))
                """
            )
            figures[name] = [
                "count": sorted.count, "p50_ms": percentile(0.5), "p99_ms": percentile(0.99), "max_ms": sorted.last!,
                "samples_ms": samples,
            ]
            verdicts.check(target, percentile(0.99))
        }
        print(
            """
              the agent's first shield (not in the figures above): X11 \(format(x11.firstShield, 1)) ms, sway \
            \(format(sway.firstShield, 1)) ms
              peak RSS of the agent: X11 \(format(x11.peakMiB, 1)) MiB, sway \(format(sway.peakMiB, 1)) MiB
            """)
        figures["x11_first_shield_ms"] = x11.firstShield
        figures["sway_first_shield_ms"] = sway.firstShield
        figures["x11_peak_rss_mib"] = x11.peakMiB
        figures["sway_peak_rss_mib"] = sway.peakMiB
        verdicts.printLines()
        verdicts.record(in: &figures)
        let url = try writeFigures(figures, name: "displays", to: output)
        print("Figures written to \(url.path)")
        try verdicts.exitIfMissed()
    }

    private struct Measured {
        var focus: [Double] = []
        /// After the first: the agent's first shield also loads the looks and lays out GTK's
        /// widgets for the first time.
        var shield: [Double] = []
        var firstShield = 0.0
        var peakMiB = 0.0

        mutating func record(shield milliseconds: Double, first: Bool) {
            if first { firstShield = milliseconds } else { shield.append(milliseconds) }
        }
    }

    // MARK: X11

    private func measureX11() throws -> Measured {
        let session = try PrivateXSession()
        let temporary = FileManager.default.temporaryDirectory.appendingPathComponent(
            "screenward-displays-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: temporary) }
        let apps = try DemoApplications(display: session.display, windows: ["one.One", "two.Two", "three.Three"])
        let driver = try FocusDriver(display: session.display)
        let agent = try AgentRun(
            display: session.display, home: temporary.appendingPathComponent("home"), verbose: true)
        defer { agent.stop() }
        let log = AgentLogLines { agent.process.standardError }
        var measured = Measured()
        for index in 0..<switches {
            let window = apps.windows[index % 2]
            let asked = Date()
            driver.connection.requestActivation(of: try windowID(window))
            measured.focus.append(try log.wait(for: "focus: \(window) ", after: asked))
        }
        _ = try agent.cli(["shield", "add", "--app", "wmclass:Game"])
        let target = apps.windows[2]
        for round in 0...shields {
            let asked = Date()
            try apps.command("class \(target) game Game")
            measured.record(shield: try log.wait(for: "shield: drawn over \(target)", after: asked), first: round == 0)
            try apps.command("class \(target) three Three")
            _ = try log.wait(for: "shield: uncovered \(target)", after: asked)
        }
        measured.peakMiB = try ProcessMeter(pid: agent.process.pid).peakResidentMiB()
        return measured
    }

    private func windowID(_ window: String) throws -> WindowID {
        guard let raw = UInt(window.replacingOccurrences(of: "0x", with: ""), radix: 16) else {
            throw HarnessError.failed("not a window id: \(window)")
        }
        return WindowID(raw)
    }

    // MARK: sway

    private func measureSway() throws -> Measured {
        let work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(
            "sway-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let users = LocalUsers()
        defer {
            _ = try? LocalUsers.capture("/usr/bin/pkill", ["-KILL", "-u", users.prefix + "bench"])
            Thread.sleep(forTimeInterval: 0.3)
            users.removeAll()
        }
        let user = try users.add("bench")
        let sway = try PrivateWaylandSession(user: user, in: work)
        defer { sway.stop() }
        let installed = work.appendingPathComponent("installed")
        try ProgramCopies.install(["screenward-agent", "screenward"], in: installed)
        let bin = installed.appendingPathComponent("bin").path
        let noDaemon = ["SCREENWARD_DAEMON_SOCKET": "/nonexistent/daemon.sock"]
        let agent = try sway.start(
            ["\(bin)/screenward-agent", "--verbose", "--idle-threshold", "3600"], environment: noDaemon)
        defer { agent.stop() }
        try agent.waitForStandardError(containing: "tracking", timeout: 20)
        var clients: [ChildProcess] = []
        defer { for client in clients { client.stop(grace: 1) } }
        // Two terminals to switch between, and Mousepad (GTK 3), the app to shield.
        for (arguments, appID) in [
            (["foot", "--app-id=one"], "one"), (["foot", "--app-id=two"], "two"), (["mousepad"], "mousepad"),
        ] {
            clients.append(try sway.start(arguments))
            try waitUntil("\(appID)'s window") { try sway.windows().contains { $0.appID == appID } }
        }
        let ipc = SwayWindows(socketPath: sway.swaySocket)
        let log = AgentLogLines { agent.standardError }
        // The toplevels' numbers, as the agent logs them: learned from its first focus of each.
        var numbers: [String: String] = [:]
        for appID in ["one", "two", "mousepad"] {
            let asked = Date()
            try ipc.run("[app_id=\(appID)] focus")
            let line = try log.line(containing: "focus: 0x", after: asked)
            numbers[appID] = line.components(separatedBy: "focus: ").last?.split(separator: " ").first.map(String.init)
        }
        var measured = Measured()
        for index in 0..<switches {
            let appID = index % 2 == 0 ? "one" : "two"
            let asked = Date()
            try ipc.run("[app_id=\(appID)] focus")
            measured.focus.append(try log.wait(for: "focus: \(numbers[appID] ?? "?") ", after: asked))
        }
        let cli = { (arguments: [String]) in
            let run = try sway.run(["\(bin)/screenward"] + arguments, environment: noDaemon)
            guard run.status == 0 else { throw HarnessError.failed("screenward \(arguments): \(run.error)") }
        }
        let mousepad = numbers["mousepad"] ?? "?"
        for round in 0...shields {
            // Shielded while another window has the focus; then Mousepad takes it.
            try ipc.run("[app_id=one] focus")
            _ = try log.wait(for: "focus: \(numbers["one"] ?? "?") ", after: Date().addingTimeInterval(-1))
            try cli(["shield", "add", "--app", "org.xfce.mousepad.desktop"])
            let asked = Date()
            try ipc.run("[app_id=mousepad] focus")
            measured.record(
                shield: try log.wait(for: "shield: drawn over \(mousepad)", after: asked), first: round == 0)
            let removed = Date()
            try cli(["shield", "remove", "--app", "org.xfce.mousepad.desktop"])
            _ = try log.wait(for: "shield: uncovered \(mousepad)", after: removed)
        }
        measured.peakMiB = try ProcessMeter(pid: try agentPID(of: agent)).peakResidentMiB()
        return measured
    }

    /// The agent's own pid: the process `runuser` started.
    private func agentPID(of runner: ChildProcess) throws -> Int32 {
        let children = try String(contentsOfFile: "/proc/\(runner.pid)/task/\(runner.pid)/children", encoding: .utf8)
        guard let pid = children.split(separator: " ").first.flatMap({ Int32($0) }) else {
            throw HarnessError.failed("runuser \(runner.pid) has no child")
        }
        return pid
    }

    private func waitUntil(_ what: String, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if try condition() { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw HarnessError.timedOut(what)
    }
}

/// The agent's log, read for lines that come after a moment: each line's own time stamp (UTC,
/// to the millisecond) says when the agent did what it says.
private final class AgentLogLines {
    private let read: () -> String
    private let parser: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss.SSS"
        return formatter
    }()

    init(_ read: @escaping () -> String) { self.read = read }

    /// The first line containing `text` stamped at or after `moment` (to its millisecond).
    func line(containing text: String, after moment: Date, timeout: TimeInterval = 10) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        let floor = moment.addingTimeInterval(-0.001)
        while Date() < deadline {
            for line in read().split(separator: "\n") where line.contains(text) {
                if let stamp = stamp(of: line), stamp >= floor { return String(line) }
            }
            Thread.sleep(forTimeInterval: 0.002)
        }
        throw HarnessError.timedOut("the agent's log line \"\(text)\"")
    }

    /// Milliseconds from `moment` to the first line containing `text` after it.
    func wait(for text: String, after moment: Date) throws -> Double {
        let line = try line(containing: text, after: moment)
        // A stamp is the millisecond the line was written in: its middle is the best guess.
        return max(0, (stamp(of: Substring(line))!.timeIntervalSince(moment) + 0.0005) * 1000)
    }

    private func stamp(of line: Substring) -> Date? {
        parser.date(from: String(line.prefix(23)))
    }
}
