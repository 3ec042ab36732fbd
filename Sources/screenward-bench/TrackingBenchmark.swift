import ArgumentParser
import Foundation
import ScreenwardTesting
import SessionHarness
import X11Session

/// The focus-tracking benchmark: accuracy over a scripted timeline, and the cost
/// of the agent when nothing happens. The agent runs as it does on a desktop: with
/// its shields (GTK), one of which covers an application after the timeline, so
/// the peak RSS is that of an agent that has shown a shield.
struct TrackingBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tracking",
        abstract: "Accuracy over a scripted focus timeline; a shield shown; CPU, wakeups and memory when quiet.")

    /// The targets: exact to the X server's record within a millisecond per switch
    /// (ActivityWatch loses 1–3 s), no polling once the person is idle (nothing wakes
    /// the agent every 10 s or more often), and a small resident set.
    enum Targets {
        static let accuracy = Target(figure: "summed |error| per switch", limit: 1, unit: "ms", digits: 3)
        static let idleWakeups = Target(figure: "wakeups per second while idle", limit: 0.1, unit: "per s")
        static let peakRSS = Target(
            figure: "peak RSS with a shield shown", limit: 45, unit: "MiB", inclusive: true, digits: 1)
    }

    /// The application the shield phase covers.
    static let shielded = "Game"

    @Option(help: "Focus switches in the timeline.")
    var switches = 240

    @Option(help: "Shortest and longest dwell on an application, in milliseconds.")
    var dwell: [Int] = [15, 250]

    @Option(name: .customLong("quiet-seconds"), help: "How long each quiet phase is measured.")
    var quietSeconds = 60.0

    @Option(help: "Seed of the timeline (the same seed gives the same timeline).")
    var seed: UInt64 = 2026

    @Option(help: "Directory the figures are written to, as JSON.")
    var output = "bench-results"

    @Flag(help: "Also write the agent's focus log and the X server's timeline to the output directory.")
    var trace = false

    func validate() throws {
        guard switches >= 1 else { throw ValidationError("--switches must be positive") }
        guard dwell.count == 2, dwell[0] >= 1, dwell[0] <= dwell[1] else {
            throw ValidationError("--dwell wants two values, min then max")
        }
    }

    func run() throws {
        let session = try PrivateXSession()
        let temporary = FileManager.default.temporaryDirectory.appendingPathComponent(
            "screenward-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: temporary) }
        let catalogEnvironment = try isolatedCatalog(in: temporary)
        let names = ["Editor", "Browser", "Terminal", "Game", "Mail", "Music"]
        let apps = try DemoApplications(
            display: session.display, windows: ["sentinel.Sentinel"] + names.map { "\($0.lowercased()).\($0)" })
        let driver = try FocusDriver(display: session.display)
        try driver.activate(apps.windows[0])

        print(
            """
            Screenward tracking benchmark on \(session.display) (Xvfb + openbox), \(switches) switches, dwell \
            \(dwell[0])–\(dwell[1]) ms; the agent: \(try ProjectPrograms.url(of: "screenward-agent").path)
            """
        )

        // Phase 1: accuracy.
        let agent = try AgentRun(
            display: session.display, home: temporary.appendingPathComponent("home"), environment: catalogEnvironment,
            verbose: trace)
        let meter = ProcessMeter(pid: agent.process.pid)
        let firstEntry = driver.log.entries.count - 1
        var generator = SplitMix(seed: seed)
        var previous = -1
        let timelineStart = Date()
        for _ in 0..<switches {
            var next = Int(generator.next() % UInt64(names.count))
            if next == previous { next = (next + 1) % names.count }
            previous = next
            try driver.activate(apps.windows[1 + next])
            let span = UInt64(dwell[1] - dwell[0] + 1)
            Thread.sleep(forTimeInterval: Double(UInt64(dwell[0]) + generator.next() % span) / 1000)
        }
        try driver.activate(apps.windows[0])
        let timelineSeconds = Date().timeIntervalSince(timelineStart)
        Thread.sleep(forTimeInterval: 0.3)

        let truth = ActiveWindowTruth.milliseconds(Array(driver.log.entries[firstEntry...]))
        if trace {
            try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
            let timeline = driver.log.entries[firstEntry...].map {
                "\($0.window.map { "\($0)" } ?? "none") \($0.serverTime)"
            }
            try (timeline.joined(separator: "\n") + "\n").write(
                toFile: output + "/tracking-x-timeline.txt", atomically: true, encoding: .utf8)
            try agent.process.standardError.write(
                toFile: output + "/tracking-agent.log", atomically: true, encoding: .utf8)
        }
        let usage = try agent.usage()
        var errors: [(name: String, truth: Double, measured: Double)] = []
        for (index, name) in names.enumerated() {
            errors.append((name, truth[apps.windows[1 + index]] ?? 0, usage.seconds(of: "wmclass:\(name)") * 1000))
        }
        let absolute = errors.map { abs($0.measured - $0.truth) }
        let meanError = absolute.reduce(0, +) / Double(absolute.count)
        let maxError = absolute.max() ?? 0
        let perSwitch = absolute.reduce(0, +) / Double(switches)

        print("\nAccuracy against the X server's own timeline (\(format(timelineSeconds, 1)) s):")
        print("  application   truth (ms)   agent (ms)   error (ms)")
        for entry in errors {
            print(
                "  \(entry.name.padding(toLength: 12, withPad: " ", startingAt: 0))"
                    + "  \(format(entry.truth, 0).leftPadded(10))   \(format(entry.measured, 1).leftPadded(10))"
                    + "   \(format(entry.measured - entry.truth, 2).leftPadded(10))"
            )
        }
        print(
            """
              mean |error| per application: \(format(meanError)) ms; max: \(format(maxError)) ms; summed |error| \
            per switch: \(format(perSwitch, 3)) ms
            """
        )
        print("  (ActivityWatch's 1 s polling loses 1–3 s per switch; see DESIGN.md)")

        // Phase 2: a shield. Game is shielded and activated a few times; each time the
        // shield over it takes the focus. It stays covered through the quiet phase.
        let shieldedWindow = apps.windows[1 + names.firstIndex(of: Self.shielded)!]
        let shieldActivations = 5
        try showShield(
            over: shieldedWindow, agent: agent, driver: driver, sentinel: apps.windows[0], times: shieldActivations)
        print(
            """
            \nShield: \(Self.shielded) shielded (screenward shield add) and activated \(shieldActivations) times; \
            its shield took the focus each time
            """
        )
        // GTK's GL probe (unless GDK_GL=disable) maps Mesa's libLLVM: tens of MB.
        var llvmMapped = Self.mapsLLVM(agent.process.pid)

        // Phase 3: quiet while an application has the focus (time is being counted).
        let focusedQuiet = try measureQuiet(meter, seconds: quietSeconds)
        let peakFocused = try meter.peakResidentMiB()
        llvmMapped = llvmMapped || Self.mapsLLVM(agent.process.pid)
        if agent.stop() != 0 {
            FileHandle.standardError.write(
                Data("warning: the agent did not stop cleanly: \(agent.process.standardError)\n".utf8))
        }

        // Phase 4: quiet while the person is idle (no input since Xvfb started); this
        // agent has its shields ready but shows none.
        let idleAgent = try AgentRun(
            display: session.display, home: temporary.appendingPathComponent("home-idle"), idleThreshold: 1,
            environment: catalogEnvironment)
        let idleMeter = ProcessMeter(pid: idleAgent.process.pid)
        // Let start-up settle: the ledger writer's thread ends a few seconds after its last write.
        Thread.sleep(forTimeInterval: 8)
        let idleQuiet = try measureQuiet(idleMeter, seconds: quietSeconds)
        let peakIdle = try idleMeter.peakResidentMiB()
        llvmMapped = llvmMapped || Self.mapsLLVM(idleAgent.process.pid)
        idleAgent.stop()

        print("\nCost over \(format(quietSeconds, 0)) s with nothing happening:")
        print(
            """
              focused, no input (1 s checkpoint runs): CPU \(format(focusedQuiet.cpu, 4)) s, wakeups \
            \(focusedQuiet.wakeups) (\(format(Double(focusedQuiet.wakeups) / quietSeconds)) per s), threads \
            \(focusedQuiet.threads)\(ended(focusedQuiet.ended))
            """
        )
        print(
            """
              idle (past the threshold):               CPU \(format(idleQuiet.cpu, 4)) s, wakeups \
            \(idleQuiet.wakeups) (\(format(Double(idleQuiet.wakeups) / quietSeconds)) per s), threads \
            \(idleQuiet.threads)\(ended(idleQuiet.ended))
            """
        )
        print(
            """
              peak RSS: \(format(peakFocused, 1)) MiB after the timeline and a shield shown, \
            \(format(peakIdle, 1)) MiB idle; Mesa's libLLVM \(llvmMapped ? "mapped" : "not mapped")
            """
        )

        var figures: [String: Any] = [
            "date": ISO8601DateFormatter().string(from: Date()),
            "switches": switches, "dwell_ms": dwell, "seed": seed, "timeline_seconds": timelineSeconds,
            "per_application": errors.map { ["app": $0.name, "truth_ms": $0.truth, "agent_ms": $0.measured] },
            "mean_abs_error_ms": meanError, "max_abs_error_ms": maxError, "abs_error_per_switch_ms": perSwitch,
            "quiet_seconds": quietSeconds,
            "quiet_focused": ["cpu_seconds": focusedQuiet.cpu, "wakeups": focusedQuiet.wakeups],
            "quiet_idle": ["cpu_seconds": idleQuiet.cpu, "wakeups": idleQuiet.wakeups],
            "shield_activations": shieldActivations,
            "peak_rss_mib": max(peakFocused, peakIdle), "peak_rss_shield_shown_mib": peakFocused,
            "peak_rss_idle_mib": peakIdle,
            "llvm_mapped": llvmMapped,
        ]
        var verdicts = Verdicts()
        verdicts.check(Targets.accuracy, perSwitch)
        verdicts.check(Targets.idleWakeups, Double(idleQuiet.wakeups) / quietSeconds)
        verdicts.check(Targets.peakRSS, max(peakFocused, peakIdle))
        verdicts.printLines()
        verdicts.record(in: &figures)
        let url = try writeFigures(figures, name: "tracking", to: output)
        print("\nFigures written to \(url.path)")
        try verdicts.exitIfMissed()
    }

    /// Shields `window`'s application through the command line, then activates the
    /// window `times` times (from the sentinel, as Alt+Tab would), each time until its
    /// shield holds the focus (the X server's `_NET_ACTIVE_WINDOW`).
    /// Ends with the sentinel focused again.
    private func showShield(over window: String, agent: AgentRun, driver: FocusDriver, sentinel: String, times: Int)
        throws
    {
        _ = try agent.cli(["shield", "add", "--app", "wmclass:\(Self.shielded)"])
        let shield = try waitForCover(of: window, agent: agent)
        let target = try windowID(window)
        for _ in 0..<times {
            try driver.activate(sentinel)
            driver.connection.requestActivation(of: target)
            let deadline = Date().addingTimeInterval(5)
            while driver.log.entries.last?.window != shield {
                guard Date() < deadline else {
                    throw HarnessError.timedOut("the shield \(shield) over \(window) never took the focus")
                }
                Thread.sleep(forTimeInterval: 0.005)
                driver.log.poll()
            }
        }
        try driver.activate(sentinel)
    }

    /// Whether the process has Mesa's libLLVM mapped (from /proc/PID/maps).
    private static func mapsLLVM(_ pid: Int32) -> Bool {
        ((try? String(contentsOfFile: "/proc/\(pid)/maps", encoding: .utf8)) ?? "").contains("libLLVM")
    }

    private func measureQuiet(_ meter: ProcessMeter, seconds: Double) throws -> (
        cpu: Double, wakeups: Int, threads: Int, ended: Int
    ) {
        let before = try meter.sample()
        Thread.sleep(forTimeInterval: seconds)
        let delta = ProcessMeter.delta(from: before, to: try meter.sample())
        return (delta.cpuSeconds, delta.wakeups, meter.threadCount(), delta.threadsEnded)
    }

    private func ended(_ count: Int) -> String {
        count == 0 ? "" : " (\(count) thread(s) ended: their last work is not counted)"
    }

    private func isolatedCatalog(in directory: URL) throws -> [String: String] {
        let empty = directory.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        return ["XDG_DATA_HOME": empty.path, "XDG_DATA_DIRS": empty.path]
    }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
