import ArgumentParser
@_spi(Screenward) import DeviceActivity
@_spi(Screenward) import FamilyControls
import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardIPC
import SessionDisplay
import SessionHarness
import Synchronization
import X11Session

/// Latency from a usage threshold being crossed (by real focus changes under Xvfb)
/// to `eventDidReachThreshold` arriving in an app's monitor, through the real agent.
///
/// The truth is the X server's own record of `_NET_ACTIVE_WINDOW`: each event's
/// crossing is the instant its application's focused time since registration
/// reaches the threshold. The server stamps from this machine's CLOCK_MONOTONIC in
/// whole milliseconds, so a change stamped T happened in [T, T+1) ms of that clock,
/// taken as T + 0.5 ms (as the agent places it); arrivals are read on the same clock.
struct ThresholdBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thresholds",
        abstract: "Threshold crossing → monitor callback latency (real agent, real focus).")

    /// The targets: a crossing reaches the app's monitor within 2 ms (p99), and
    /// every crossing does.
    enum Targets {
        static let latency = Target(figure: "crossing → callback, p99", limit: 2, unit: "ms", inclusive: true)
        static let missing = Target(
            figure: "crossings without a callback", limit: 0, unit: "", inclusive: true, digits: 0)
    }

    @Option(help: "Applications that take turns at the focus.")
    var apps = 4
    @Option(help: "Thresholds per application (every --step seconds of its focus).")
    var thresholds = 30
    @Option(help: "Seconds of focus between one application's thresholds.")
    var step = 0.25
    @Option(help: "How long each application keeps the focus per turn, in seconds.")
    var dwell = 1.0
    @Option(help: "Directory the figures are written to, as JSON.")
    var output = "bench-results"

    func validate() throws {
        guard (1...8).contains(apps), thresholds >= 1, step >= 0.05, dwell >= 0.1 else {
            throw ValidationError("--apps 1…8, --thresholds ≥ 1, --step ≥ 0.05, --dwell ≥ 0.1")
        }
    }

    func run() throws {
        let session = try PrivateXSession()
        let temporary = FileManager.default.temporaryDirectory.appendingPathComponent(
            "screenward-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: temporary) }
        let empty = temporary.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let names = (0..<apps).map { "App\($0)" }
        let windows = try DemoApplications(
            display: session.display, windows: ["sentinel.Sentinel"] + names.map { "\($0.lowercased()).\($0)" })
        let driver = try FocusDriver(display: session.display)
        try driver.activate(windows.windows[0])
        let home = temporary.appendingPathComponent("home")
        let agent = try AgentRun(
            display: session.display, home: home,
            environment: ["XDG_DATA_HOME": empty.path, "XDG_DATA_DIRS": empty.path])
        defer { agent.stop() }
        print(
            """
            Screenward threshold benchmark on \(session.display): \(apps) applications × \(thresholds) \
            thresholds, \(step) s apart
            """
        )

        // The benchmark is the app: authorised, given tokens for the demo windows, monitoring.
        let client = ServiceClient(
            transport: SocketTransport(path: home.appendingPathComponent("agent.sock").path),
            bundleIdentifier: "org.screenward.bench")
        ScreenwardApp.client = client
        try agent.allowAccess("org.screenward.bench")
        _ = try client.call(AuthorizationMethods.request, .individual)
        let selection = try client.call(
            AuthorizationMethods.issueSelection, SelectionRequest(applications: names.map { "wmclass:\($0)" }))
        // Tokens come back as a set; ask one at a time to know whose is whose.
        var tokens: [ApplicationToken] = []
        for name in names {
            tokens.append(
                try client.call(
                    AuthorizationMethods.issueSelection, SelectionRequest(applications: ["wmclass:\(name)"])
                ).applicationTokens.first!)
        }
        precondition(Set(tokens) == selection.applicationTokens)
        var events: [DeviceActivityEvent.Name: DeviceActivityEvent] = [:]
        var levels: [DeviceActivityEvent.Name: (app: Int, seconds: Double)] = [:]
        for (app, token) in tokens.enumerated() {
            for index in 1...thresholds {
                let seconds = step * Double(index)
                let name = DeviceActivityEvent.Name("\(names[app])-\(index)")
                let whole = Int(seconds)
                events[name] = DeviceActivityEvent(
                    applications: [token],
                    threshold: DateComponents(
                        second: whole, nanosecond: Int(((seconds - Double(whole)) * 1e9).rounded())))
                levels[name] = (app, seconds)
            }
        }
        let arrivals = Arrivals()
        try MonitorAttachment.attach(LatencyMonitor(arrivals: arrivals), client: client)
        let now = Date()
        let calendar = Calendar.current
        let start = calendar.dateComponents([.hour, .minute], from: now.addingTimeInterval(-3600))
        let end = calendar.dateComponents([.hour, .minute], from: now.addingTimeInterval(3 * 3600))
        try DeviceActivityCenter().startMonitoring(
            "bench", during: DeviceActivitySchedule(intervalStart: start, intervalEnd: end, repeats: false),
            events: events)
        let registeredAt = MonotonicClock.milliseconds()

        // Turns at the focus until every application is past its last threshold.
        let firstEntry = driver.log.entries.count
        let turns = Int((step * Double(thresholds) / dwell).rounded(.up)) + 1
        for _ in 0..<turns {
            for window in windows.windows.dropFirst() {
                try driver.activate(window)
                Thread.sleep(forTimeInterval: dwell)
            }
        }
        try driver.activate(windows.windows[0])
        Thread.sleep(forTimeInterval: 0.5)

        // As the agent counts it: a moment without an active window shorter than the
        // transient gap is a hand-over, not a loss of focus.
        let kept = ActiveWindowTruth.focusChanges(Array(driver.log.entries[firstEntry...]))
        let readAt = MonotonicClock.milliseconds()
        let changes = kept.map { change in
            (window: change.window.map { "\($0)" }, at: Self.monotonic(ofStamp: change.serverTime, now: readAt))
        }
        var latencies: [Double] = []
        var missing: [String] = []
        /// Each crossing's latency and its distance (ms) from the nearest focus change.
        var slowest: [(latency: Double, name: String, fromChange: Double)] = []
        let received = arrivals.all
        for (name, level) in levels {
            guard
                let crossing = Self.crossing(
                    of: level.seconds, window: windows.windows[1 + level.app], changes: changes,
                    after: registeredAt)
            else { continue }
            guard let arrival = received[name.rawValue] else {
                missing.append(name.rawValue)
                continue
            }
            latencies.append(arrival - crossing)
            let nearest = changes.map { $0.at - crossing }.min { abs($0) < abs($1) } ?? .infinity
            slowest.append((arrival - crossing, name.rawValue, nearest))
        }
        latencies.sort()
        slowest.sort { $0.latency > $1.latency }
        guard !latencies.isEmpty else { throw HarnessError.failed("no threshold was crossed") }
        func percentile(_ p: Double) -> Double { screenward_bench.percentile(p, of: latencies) }
        print(
            """
            \n\(latencies.count) crossings measured\
            \(missing.isEmpty ? "" : "; \(missing.count) crossed without a callback: \(missing.sorted().prefix(10))")
            """
        )
        print(
            """
              latency crossing → callback (ms): p50 \(format(percentile(0.5))), p90 \(format(percentile(0.9))), \
            p99 \(format(percentile(0.99))), max \(format(latencies.last!)), min \(format(latencies.first!))
            """
        )
        print("  Truth: X server timestamps on CLOCK_MONOTONIC (whole milliseconds, each taken at its middle).")
        // Where the slow ones were: a crossing near a focus change shares the agent's loop with it.
        print("  slowest crossings (latency; ms from the nearest focus change, negative: the change came first):")
        for crossing in slowest.prefix(5) {
            print("    \(format(crossing.latency)) ms  \(crossing.name)  \(format(crossing.fromChange))")
        }
        var figures: [String: Any] = [
            "date": ISO8601DateFormatter().string(from: Date()), "apps": apps, "thresholds_per_app": thresholds,
            "step_seconds": step,
            "dwell_seconds": dwell, "crossings": latencies.count, "missing": missing.count,
            "latency_ms": [
                "p50": percentile(0.5), "p90": percentile(0.9), "p99": percentile(0.99), "max": latencies.last!,
                "min": latencies.first!,
            ],
        ]
        var verdicts = Verdicts()
        verdicts.check(Targets.latency, percentile(0.99))
        verdicts.check(Targets.missing, Double(missing.count))
        verdicts.printLines()
        verdicts.record(in: &figures)
        let url = try writeFigures(figures, name: "thresholds", to: output)
        print("Figures written to \(url.path)")
        try verdicts.exitIfMissed()
    }

    /// The CLOCK_MONOTONIC milliseconds of the middle of the millisecond the server
    /// stamped `stamp` (32 bits of that clock's milliseconds), read before `now`.
    static func monotonic(ofStamp stamp: UInt32, now: Double) -> Double {
        now - ServerClock.millisecondsSince(ServerTime(rawValue: stamp), atMonotonic: now) + 0.5
    }

    /// When `window` has held the focus for `seconds` since `after` (CLOCK_MONOTONIC
    /// milliseconds, as `changes` are), or nil.
    static func crossing(of seconds: Double, window: String, changes: [(window: String?, at: Double)], after: Double)
        -> Double?
    {
        let seconds = seconds * 1000
        var accumulated = 0.0
        for (change, next) in zip(changes, changes.dropFirst()) where change.window == window {
            let start = max(change.at, after)
            guard next.at > start else { continue }
            if accumulated + (next.at - start) >= seconds { return start + (seconds - accumulated) }
            accumulated += next.at - start
        }
        return nil
    }
}

/// When each event's callback arrived (CLOCK_MONOTONIC milliseconds).
final class Arrivals: Sendable {
    private let times = Mutex<[String: Double]>([:])
    func record(_ name: String) {
        let now = MonotonicClock.milliseconds()
        times.withLock { $0[name] = $0[name] ?? now }
    }
    var all: [String: Double] { times.withLock { $0 } }
}

final class LatencyMonitor: DeviceActivityMonitor {
    var arrivals: Arrivals?

    convenience init(arrivals: Arrivals) {
        self.init()
        self.arrivals = arrivals
    }

    required init() {}

    override func eventDidReachThreshold(_ event: DeviceActivityEvent.Name, activity: DeviceActivityName) {
        arrivals?.record(event.rawValue)
    }
}
