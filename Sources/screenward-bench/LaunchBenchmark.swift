import ArgumentParser
@_spi(Screenward) import DeviceActivity
@_spi(Screenward) import FamilyControls
import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardIPC
import SessionHarness
import X11Session

/// Latency from a usage threshold being crossed to `eventDidReachThreshold` in an app's
/// monitor extension that the agent starts: cold (no process of the extension runs when
/// the threshold is crossed: the agent starts it) and warm (the extension the agent
/// started is still attached).
///
/// The events are registered while another window has the focus; then the measured
/// window takes it and keeps it, so an event's crossing is that activation plus its
/// threshold. The activation's instant is the X server's own timestamp, mapped to the
/// wall clock with the smallest offset seen over a few activations (as the thresholds
/// benchmark does).
/// The extension is this program (`launch-monitor`), installed with a manifest; it writes
/// each callback's arrival (wall clock) to a file. Cold, it exits right after each
/// callback is acknowledged, so the next crossing finds nothing running.
struct LaunchBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "launch",
        abstract: "Threshold crossing → callback in a monitor extension the agent starts: cold launch and warm.")

    enum Targets {
        static let cold = Target(figure: "crossing → callback, cold launch, p99", limit: 500, unit: "ms", digits: 1)
        static let warm = Target(figure: "crossing → callback, warm, p99", limit: 10, unit: "ms")
        static let missing = Target(
            figure: "crossings without a callback", limit: 0, unit: "", inclusive: true, digits: 0)
    }

    static let bundleIdentifier = "org.screenward.bench.launch"

    @Option(help: "Crossings measured in each phase.")
    var crossings = 100
    @Option(help: "Seconds between crossings when the extension starts cold (it must have exited in between).")
    var coldSpacing = 1.0
    @Option(help: "Seconds between crossings when it is warm (under its 5 s idle exit).")
    var warmSpacing = 0.25
    @Option(help: "Directory the figures are written to, as JSON.")
    var output = "bench-results"

    func validate() throws {
        guard crossings >= 1, crossings <= 250, coldSpacing >= 0.5, warmSpacing >= 0.05, warmSpacing < 4 else {
            throw ValidationError("--crossings 1…250, --cold-spacing ≥ 0.5, --warm-spacing 0.05…4")
        }
    }

    func run() throws {
        let session = try PrivateXSession()
        let temporary = FileManager.default.temporaryDirectory.appendingPathComponent(
            "screenward-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: temporary) }
        let data = temporary.appendingPathComponent("data")
        let apps = data.appendingPathComponent("screenward/apps")
        try FileManager.default.createDirectory(at: apps, withIntermediateDirectories: true)
        let program = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let manifest: [String: Any] = [
            "format": 1, "bundleIdentifier": Self.bundleIdentifier, "displayName": "Launch benchmark",
            "extensions": [
                ["point": "device-activity-monitor", "executable": program, "arguments": ["launch-monitor"]]
            ],
        ]
        try JSONSerialization.data(withJSONObject: manifest).write(
            to: apps.appendingPathComponent("\(Self.bundleIdentifier).json"))
        let arrivalsFile = LaunchMonitorFiles(dataHome: data)

        let windows = try DemoApplications(
            display: session.display, windows: ["sentinel.Sentinel", "spare.Spare", "reader.Reader"])
        let driver = try FocusDriver(display: session.display)
        // Server time → wall clock: the smallest offset seen is the one with the least delay.
        var offsets: [Double] = []
        for _ in 0..<8 {
            for window in windows.windows.prefix(2) {
                try driver.activate(window)
                offsets.append(Date().timeIntervalSince1970 - Double(driver.log.entries.last!.serverTime) / 1000)
            }
        }
        let clock = FocusClock(
            driver: driver, offset: offsets.min()!, sentinel: windows.windows[0], measured: windows.windows[2])
        let home = temporary.appendingPathComponent("home")
        let agent = try AgentRun(
            display: session.display, home: home, environment: ["XDG_DATA_HOME": data.path, "XDG_DATA_DIRS": data.path])
        defer { agent.stop() }
        print(
            """
            Screenward extension launch benchmark on \(session.display): \(crossings) crossings cold \
            (\(coldSpacing) s apart), \(crossings) warm (\(warmSpacing) s apart)
            """
        )

        let client = ServiceClient(
            transport: SocketTransport(path: home.appendingPathComponent("agent.sock").path),
            bundleIdentifier: Self.bundleIdentifier)
        ScreenwardApp.client = client
        try agent.allowAccess(Self.bundleIdentifier)
        _ = try client.call(AuthorizationMethods.request, .individual)
        let reader = try client.call(
            AuthorizationMethods.issueSelection, SelectionRequest(applications: ["wmclass:Reader"])
        ).applicationTokens

        var figures: [String: Any] = [
            "date": ISO8601DateFormatter().string(from: Date()), "crossings_per_phase": crossings,
        ]
        var verdicts = Verdicts()
        var allMissing = 0
        // Registering inside a running interval owes intervalDidStart at once: that starts
        // the extension, which (cold) leaves again before the first crossing, or (warm)
        // stays attached for it.
        for (phase, spacing) in [("cold", coldSpacing), ("warm", warmSpacing)] {
            try arrivalsFile.setMode(phase)
            let (latencies, missing) = try measure(
                phase: phase, spacing: spacing, count: crossings, tokens: reader, files: arrivalsFile, clock: clock)
            let measured = latencies.sorted()
            guard !measured.isEmpty else {
                throw HarnessError.failed(
                    "no callback arrived in the \(phase) phase: \(agent.process.standardError.suffix(2000))")
            }
            func percentile(_ p: Double) -> Double { screenward_bench.percentile(p, of: measured) }
            print(
                """
                \n\(phase): \(measured.count) crossings\
                \(missing.isEmpty ? "" : "; \(missing.count) without a callback")
                """
            )
            print(
                """
                  latency crossing → callback (ms): p50 \(format(percentile(0.5))), p90 \
                \(format(percentile(0.9))), p99 \(format(percentile(0.99))), max \(format(measured.last!)), min \
                \(format(measured.first!))
                """
            )
            figures[phase] = [
                "spacing_seconds": spacing, "crossings": measured.count, "missing": missing.count,
                "latency_ms": [
                    "p50": percentile(0.5), "p90": percentile(0.9), "p99": percentile(0.99), "max": measured.last!,
                    "min": measured.first!,
                ],
            ]
            verdicts.check(phase == "cold" ? Targets.cold : Targets.warm, percentile(0.99))
            allMissing += missing.count
        }
        verdicts.check(Targets.missing, Double(allMissing))
        let runs = try agent.cli(["extensions", "--json", "--runs", "1000"])
        if let report = try JSONSerialization.jsonObject(with: Data(runs.utf8)) as? [String: Any],
            let all = report["runs"] as? [[String: Any]]
        {
            figures["extension_runs"] = all.count
            print("\nThe agent started the extension \(all.count) times.")
        }
        verdicts.printLines()
        verdicts.record(in: &figures)
        let url = try writeFigures(figures, name: "launch", to: output)
        print("Figures written to \(url.path)")
        try verdicts.exitIfMissed()
    }

    /// Registers `count` events `spacing` apart, gives the measured window the focus, and
    /// waits for them. Returns each callback's latency in event order and the events that
    /// never came.
    private func measure(
        phase: String, spacing: Double, count: Int, tokens: Set<ApplicationToken>, files: LaunchMonitorFiles,
        clock: FocusClock
    ) throws -> (latencies: [Double], missing: [String]) {
        try files.clearArrivals()
        var events: [DeviceActivityEvent.Name: DeviceActivityEvent] = [:]
        var thresholds: [String: Double] = [:]
        for index in 1...count {
            let seconds = spacing * Double(index)
            let whole = Int(seconds)
            let name = String(format: "%@-%03d", phase, index)
            events[.init(name)] = DeviceActivityEvent(
                applications: tokens,
                threshold: DateComponents(second: whole, nanosecond: Int(((seconds - Double(whole)) * 1e9).rounded())))
            thresholds[name] = seconds
        }
        let now = Date()
        let calendar = Calendar.current
        let schedule = DeviceActivitySchedule(
            intervalStart: calendar.dateComponents([.hour, .minute], from: now.addingTimeInterval(-3600)),
            intervalEnd: calendar.dateComponents([.hour, .minute], from: now.addingTimeInterval(3 * 3600)),
            repeats: false)
        try clock.driver.activate(clock.sentinel)
        try DeviceActivityCenter().startMonitoring(.init(phase), during: schedule, events: events)
        Thread.sleep(forTimeInterval: 0.3)
        try clock.driver.activate(clock.measured)
        let registered = Double(clock.driver.log.entries.last!.serverTime) / 1000 + clock.offset
        let last = spacing * Double(count)
        let deadline = Date(timeIntervalSince1970: registered + last + 15)
        while Date() < deadline, try files.arrivals().count < count { Thread.sleep(forTimeInterval: 0.1) }
        let arrivals = try files.arrivals()
        var latencies: [Double] = []
        var missing: [String] = []
        for name in thresholds.keys.sorted() {
            guard let arrival = arrivals[name] else {
                missing.append(name)
                continue
            }
            latencies.append((arrival - (registered + thresholds[name]!)) * 1000)
        }
        try clock.driver.activate(clock.sentinel)
        DeviceActivityCenter().stopMonitoring([.init(phase)])
        return (latencies, missing)
    }
}

/// The focus, and the X server's clock on the wall.
struct FocusClock {
    let driver: FocusDriver
    /// Wall seconds minus server seconds.
    let offset: Double
    let sentinel: String
    let measured: String
}

/// What the benchmark and its extension share (the extension's environment is clean:
/// it finds them under its XDG_DATA_HOME): the phase, and the callbacks' arrivals.
struct LaunchMonitorFiles {
    let folder: URL

    init(dataHome: URL) {
        folder = dataHome.appendingPathComponent("launch-bench")
    }

    static var standard: LaunchMonitorFiles? {
        ProcessInfo.processInfo.environment["XDG_DATA_HOME"].map {
            LaunchMonitorFiles(dataHome: URL(fileURLWithPath: $0))
        }
    }

    var modeURL: URL { folder.appendingPathComponent("mode") }
    var arrivalsURL: URL { folder.appendingPathComponent("arrivals") }

    func setMode(_ mode: String) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(mode.utf8).write(to: modeURL)
    }

    var mode: String { (try? String(contentsOf: modeURL, encoding: .utf8)) ?? "warm" }

    func clearArrivals() throws {
        try Data().write(to: arrivalsURL)
    }

    /// Appends one line: the event and the wall-clock instant it arrived.
    func record(_ event: String, at time: Date) {
        guard let handle = try? FileHandle(forWritingTo: arrivalsURL) else { return }
        defer { try? handle.close() }
        _ = try? handle.seekToEnd()
        try? handle.write(contentsOf: Data("\(event) \(time.timeIntervalSince1970)\n".utf8))
    }

    func arrivals() throws -> [String: Double] {
        let text = try String(contentsOf: arrivalsURL, encoding: .utf8)
        var result: [String: Double] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let time = Double(parts[1]) {
                result[String(parts[0])] = result[String(parts[0])] ?? time
            }
        }
        return result
    }
}

/// The benchmark's monitor extension, started by the agent.
struct LaunchMonitorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "launch-monitor", abstract: "The launch benchmark's monitor extension (the agent starts it).",
        shouldDisplay: false)

    func run() throws {
        ScreenwardApp.bundleIdentifier = LaunchBenchmark.bundleIdentifier
        LaunchMonitor.main()
    }
}

final class LaunchMonitor: DeviceActivityMonitor {
    required init() {}

    override func eventDidReachThreshold(_ event: DeviceActivityEvent.Name, activity: DeviceActivityName) {
        let arrived = Date()
        LaunchMonitorFiles.standard?.record(event.rawValue, at: arrived)
        leaveIfCold()
    }

    override func intervalDidStart(for activity: DeviceActivityName) { leaveIfCold() }
    override func intervalDidEnd(for activity: DeviceActivityName) { leaveIfCold() }

    /// Cold: leave once this callback is acknowledged (right after it returns), so the
    /// next crossing finds no process of the extension.
    private func leaveIfCold() {
        guard LaunchMonitorFiles.standard?.mode == "cold" else { return }
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: 0.2)
            exit(0)
        }
    }
}
