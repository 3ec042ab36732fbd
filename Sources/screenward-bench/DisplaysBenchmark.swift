import ArgumentParser
import Foundation
import SessionDisplay
import SessionHarness
import WaylandSession
import X11Session

/// The agent on its kinds of display, side by side in one run: X11 (Xvfb + openbox, the
/// reference), a wlroots compositor (sway) and GNOME Shell with Screenward's extension, both
/// headless as a real account (neither will run as root). For each: a focus change → the agent
/// counting the new window; a shielded app's window focused → its shield drawn; and the
/// agent's peak RSS.
///
/// Each time is from the moment of the change (X11: the activation request, or the window's
/// class set to the shielded app's; sway: the IPC command that focuses it; GNOME Shell: the
/// Shell's clock right after it activated the window, in an `Eval` its unsafe mode allows) to
/// the agent's log line that it counted it, or drew the shield (on GNOME Shell: the Shell's
/// word that it did), to the log's millisecond.
struct DisplaysBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "displays",
        abstract:
            "The agent on X11, sway, GNOME Shell and KWin side by side: focus → counted, shield drawn, memory.")

    /// The goal the Wayland work set: a shield within 10 ms on wlroots and GNOME as on X11; a
    /// focus change counted within a frame.
    enum Targets {
        static func focus(_ display: String) -> Target {
            Target(figure: "\(display): focus change → counted, p99", limit: 16, unit: "ms", digits: 1)
        }
        static func shield(_ display: String, _ shielded: String) -> Target {
            Target(figure: "\(display): \(shielded) → shield drawn, p99", limit: 10, unit: "ms")
        }
    }

    @Option(help: "Focus changes measured on each display.")
    var switches = 100

    @Option(help: "Shields measured on each display.")
    var shields = 20

    @Option(name: .customLong("display"), help: "Only these displays (x11, sway, gnome, kwin; all by default).")
    var only: [String] = []

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
        // X11's shielded window is one whose class becomes the shielded app's; the others', one focused.
        let displays: [(String, String, String, () throws -> Measured)] = [
            ("x11", "X11", "shielded window", measureX11),
            ("sway", "sway", "shielded window focused", measureSway),
            ("gnome", "GNOME Shell", "shielded window focused", measureGnomeShell),
            ("kwin", "KWin", "shielded window focused", measureKWin),
        ]
        for (key, display, shielded, measure) in displays where only.isEmpty || only.contains(key) {
            let measured = try measure()
            for (name, label, samples, target) in [
                ("\(key)_focus", "\(display): focus change → counted", measured.focus, Targets.focus(display)),
                (
                    "\(key)_shield", "\(display): \(shielded) → shield drawn", measured.shield,
                    Targets.shield(display, shielded)
                ),
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
                    "count": sorted.count, "p50_ms": percentile(0.5), "p99_ms": percentile(0.99),
                    "max_ms": sorted.last!, "samples_ms": samples,
                ]
                verdicts.check(target, percentile(0.99))
            }
            print(
                """
                  \(display): the agent's first shield (not in the figures above) \(format(measured.firstShield, 1)) \
                ms; the agent's peak RSS \(format(measured.peakMiB, 1)) MiB
                """)
            figures["\(key)_first_shield_ms"] = measured.firstShield
            figures["\(key)_peak_rss_mib"] = measured.peakMiB
        }
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

    // MARK: Wayland

    /// A scratch account for a compositor that will not run as root, removed with what it ran.
    private func withAccount<Result>(_ body: (String, URL) throws -> Result) throws -> Result {
        let work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(
            "wayland-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let users = LocalUsers()
        defer {
            _ = try? LocalUsers.capture("/usr/bin/pkill", ["-KILL", "-u", users.prefix + "bench"])
            Thread.sleep(forTimeInterval: 0.3)
            users.removeAll()
        }
        return try body(try users.add("bench"), work)
    }

    private func measureSway() throws -> Measured {
        try withAccount { user, work in
            let sway = try PrivateWaylandSession(user: user, in: work)
            defer { sway.stop() }
            let ipc = SwayWindows(socketPath: sway.swaySocket)
            return try measure(
                in: sway, work: work,
                focus: { appID in
                    let asked = Date()
                    try ipc.run("[app_id=\(appID)] focus")
                    return asked
                }, windows: { try sway.windows().compactMap(\.appID) })
        }
    }

    private func measureGnomeShell() throws -> Measured {
        try withAccount { user, work in
            let shell = try PrivateGnomeShellSession(user: user, in: work)
            defer { shell.stop() }
            return try measure(
                in: shell, work: work, focus: { try shell.activate(wmClass: $0) },
                windows: { try shell.windowClasses() })
        }
    }

    private func measureKWin() throws -> Measured {
        try withAccount { user, work in
            let kwin = try PrivateKWinSession(user: user, in: work)
            defer { kwin.stop() }
            let scripts = work.appendingPathComponent("scripts")
            try FileManager.default.createDirectory(at: scripts, withIntermediateDirectories: true)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: scripts.path)
            return try measure(
                in: kwin, work: work, focus: { try kwin.activate(resourceClass: $0, in: scripts) },
                windows: { try kwin.windowClasses(in: scripts) })
        }
    }

    /// The agent in `session`, as its account: `focus` gives the focus to the window of an
    /// app_id and says when the compositor did; `windows` lists the app_ids shown.
    private func measure(
        in session: any AccountSession, work: URL, focus: (String) throws -> Date, windows: () throws -> [String]
    ) throws -> Measured {
        let installed = work.appendingPathComponent("installed")
        try ProgramCopies.install(["screenward-agent", "screenward"], in: installed)
        let bin = installed.appendingPathComponent("bin").path
        let noDaemon = ["SCREENWARD_DAEMON_SOCKET": "/nonexistent/daemon.sock"]
        let agent = try session.start(
            ["\(bin)/screenward-agent", "--verbose", "--idle-threshold", "3600"], environment: noDaemon)
        defer { agent.stop() }
        try agent.waitForStandardError(containing: "tracking", timeout: 20)
        var clients: [ChildProcess] = []
        defer { for client in clients { client.stop(grace: 1) } }
        // Two players to switch between (mpv, idle, drawing in shared memory: foot stops on
        // KWin's virtual output), and Mousepad (GTK 3), the app to shield.
        let player = ["mpv", "--vo=wlshm", "--no-audio", "--idle=yes", "--force-window=yes"]
        for (arguments, appID) in [
            (player + ["--wayland-app-id=one"], "one"), (player + ["--wayland-app-id=two"], "two"),
            (["mousepad", "--disable-server"], "mousepad"),
        ] {
            clients.append(try session.start(arguments))
            var shown: [String] = []
            do {
                try waitUntil("\(appID)'s window") {
                    shown = try windows()
                    return shown.contains(appID)
                }
            } catch {
                let said = clients.last?.standardError ?? ""
                throw HarnessError.timedOut("\(appID)'s window (the windows shown: \(shown)); \(arguments[0]): \(said)")
            }
        }
        let log = AgentLogLines { agent.standardError }
        // The windows' numbers, as the agent logs them: learned from its first focus of each.
        var numbers: [String: String] = [:]
        for appID in ["one", "two", "mousepad"] {
            let line = try log.line(containing: "focus: ", after: try focus(appID)) { !$0.contains("focus: none") }
            numbers[appID] = line.components(separatedBy: "focus: ").last?.split(separator: " ").first.map(String.init)
        }
        var measured = Measured()
        for index in 0..<switches {
            let appID = index % 2 == 0 ? "one" : "two"
            let focused = try focus(appID)
            measured.focus.append(try log.wait(for: "focus: \(numbers[appID] ?? "?") ", after: focused))
        }
        let cli = { (arguments: [String]) in
            let run = try session.run(["\(bin)/screenward"] + arguments, environment: noDaemon)
            guard run.status == 0 else { throw HarnessError.failed("screenward \(arguments): \(run.error)") }
        }
        let mousepad = numbers["mousepad"] ?? "?"
        for round in 0...shields {
            // Shielded while another window has the focus; then Mousepad takes it.
            _ = try log.wait(for: "focus: \(numbers["one"] ?? "?") ", after: try focus("one"))
            try cli(["shield", "add", "--app", "org.xfce.mousepad.desktop"])
            let focused = try focus("mousepad")
            measured.record(
                shield: try log.wait(for: "shield: drawn over \(mousepad)", after: focused), first: round == 0)
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
    func line(
        containing text: String, after moment: Date, timeout: TimeInterval = 10,
        where accepted: (Substring) -> Bool = { _ in true }
    ) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        let floor = moment.addingTimeInterval(-0.001)
        while Date() < deadline {
            for line in read().split(separator: "\n") where line.contains(text) && accepted(line) {
                if let stamp = stamp(of: line), stamp >= floor { return String(line) }
            }
            Thread.sleep(forTimeInterval: 0.002)
        }
        let last = read().split(separator: "\n").suffix(12).joined(separator: "\n")
        throw HarnessError.timedOut("the agent's log line \"\(text)\"; its last lines:\n\(last)")
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
