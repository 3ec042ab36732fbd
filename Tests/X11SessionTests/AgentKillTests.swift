@_spi(Screenward) import DeviceActivity
@_spi(Screenward) import FamilyControls
import Foundation
import GRDB
@_spi(Screenward) import ManagedSettings
import ScreenwardIPC
import SessionHarness
import Synchronization
import X11Session
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// `kill -9` of the real agent while its ledger writer is busy: during bursts of focus
/// changes, just after and just before its one-second checkpoint, while SQLite copies
/// its log into the database, and before its first checkpoint. After each kill the
/// ledger opens cleanly, less than a second is lost, nothing is invented (the truth
/// is the X server's own record of `_NET_ACTIVE_WINDOW`), and an app's monitor
/// never gets a callback twice.
final class AgentKillTests: XSessionTestCase {
    /// How one run of the agent ends.
    private enum Ending: CustomStringConvertible {
        /// `app` has the focus from before the start; killed `offset` seconds after the
        /// first checkpoint reached the log, or at once if none came within a second.
        case startup(app: String, offset: Double)
        /// Focus changes among Alpha, Beta and Gamma for `seconds`; killed right after an
        /// activation (the writer has a close, an open and a status to write) or mid-dwell.
        case burst(seconds: Double, rightAfterActivation: Bool)
        /// `app` keeps the focus; killed `offset` seconds after a one-second checkpoint reached the log.
        case steady(app: String, offset: Double)
        /// Focus changes until SQLite starts copying the log into the database; killed then.
        case copyingLog(limit: Double)
        /// The monitor detached first; `app` keeps the focus past its threshold; killed after `hold` seconds.
        case detachedMonitor(app: String, hold: Double)

        var description: String {
            switch self {
            case .startup(let app, let offset):
                "\(app) focused since the start, killed \(Int(offset * 1000)) ms after the first checkpoint"
            case .burst(let seconds, let right):
                "burst of \(seconds) s, killed \(right ? "right after an activation" : "mid-dwell")"
            case .steady(let app, let offset): "\(app) steady, killed \(Int(offset * 1000)) ms after a checkpoint"
            case .copyingLog: "burst until SQLite copies the log into the database"
            case .detachedMonitor(let app, let hold): "no monitor; \(app) past its threshold, killed after \(hold) s"
            }
        }
    }

    private let client = "org.example.killtest"
    private let burstApps = ["Alpha", "Beta", "Gamma"]

    func testKillsWhileTheWriterIsBusyLoseAtMostASecondAndNothingFiresTwice() throws {
        let session = try startXSession()
        let environment = try catalogEnvironment(entries: [:])
        let names = burstApps + ["Delta", "Epsilon"]
        let apps = try DemoApplications(
            display: session.display, windows: ["sentinel.Sentinel"] + names.map { "\($0.lowercased()).\($0)" })
        let sentinel = apps.windows[0]
        let windows = Dictionary(uniqueKeysWithValues: zip(names, apps.windows.dropFirst()))
        let driver = try FocusDriver(display: session.display)
        try driver.activate(sentinel)
        let ledgerPath = home.appendingPathComponent("ledger.sqlite").path

        // The test is an app: authorised, with a threshold every half second of Alpha,
        // Beta and Gamma, and one for Epsilon; its monitor is attached throughout.
        var agent = try AgentRun(display: session.display, home: home, environment: environment)
        var logs: [String] = []
        let socket = AgentAddress.socketPath(inHome: home, environment: agent.environment)
        let app = ServiceClient(transport: SocketTransport(path: socket), bundleIdentifier: client)
        try agent.allowAccess(client)
        _ = try app.call(AuthorizationMethods.request, .individual)
        var events: [DeviceActivityEvent.Name: DeviceActivityEvent] = [:]
        var thresholds: [String: (app: String, seconds: Double)] = [:]
        for name in burstApps + ["Epsilon"] {
            let token = try XCTUnwrap(
                try app.call(AuthorizationMethods.issueSelection, SelectionRequest(applications: ["wmclass:\(name)"]))
                    .applicationTokens.first)
            for seconds in name == "Epsilon" ? [1.5] : Array(stride(from: 0.5, through: 3.0, by: 0.5)) {
                let event = "\(name)-\(seconds)"
                events[DeviceActivityEvent.Name(event)] = DeviceActivityEvent(
                    applications: [token],
                    threshold: DateComponents(
                        second: Int(seconds), nanosecond: Int((seconds - Double(Int(seconds))) * 1e9)))
                thresholds[event] = (name, seconds)
            }
        }
        let now = Date()
        let calendar = Calendar.current
        let schedule = DeviceActivitySchedule(
            intervalStart: calendar.dateComponents([.hour, .minute], from: now.addingTimeInterval(-3600)),
            intervalEnd: calendar.dateComponents([.hour, .minute], from: now.addingTimeInterval(3 * 3600)),
            repeats: false)
        _ = try app.call(ActivityMethods.start, ActivityRegistration(name: "day", schedule: schedule, events: events))
        let firstMonitor = try RecordingMonitor(socket: socket, bundleIdentifier: client)
        var monitors = [firstMonitor]
        try waitFor("intervalDidStart") { firstMonitor.names.contains("intervalDidStart") }
        XCTAssertEqual(agent.stop(), 0)
        logs.append(agent.process.standardError)
        var persisted = try agent.usage()

        let endings: [Ending] = [
            .startup(app: "Delta", offset: 0.9),
            .burst(seconds: 2.0, rightAfterActivation: true),
            .steady(app: "Delta", offset: 0.005),
            .startup(app: "Delta", offset: 0.3),
            .burst(seconds: 1.7, rightAfterActivation: false),
            .steady(app: "Delta", offset: 0.9),
            .copyingLog(limit: 25),
            .startup(app: "Delta", offset: 0.6),
            .detachedMonitor(app: "Epsilon", hold: 2.5),
            .steady(app: "Delta", offset: 0.4),
            .burst(seconds: 1.2, rightAfterActivation: true),
        ]
        var generator = SplitMix(seed: 90210)
        var truthSinceRegistration: [String: Double] = [:]
        var recordedSinceRegistration: [String: Double] = [:]
        var report: [String] = []

        for (index, ending) in endings.enumerated() {
            // Who has the focus as the agent starts.
            if case .startup(let held, _) = ending {
                try driver.activate(windows[held]!)
            } else {
                try driver.activate(sentinel)
            }
            if case .detachedMonitor = ending { firstMonitor.close() }
            agent = try AgentRun(display: session.display, home: home, environment: environment)
            let tracking = monotonicMilliseconds()
            let trackingSince = Date()
            if index == endings.firstIndex(where: { if case .detachedMonitor = $0 { true } else { false } })! + 1 {
                // A new monitor process of the app: what the killed agent owed it comes now.
                monitors.append(try RecordingMonitor(socket: socket, bundleIdentifier: client))
            }

            var windowStart = tracking
            let killedAt: UInt32
            switch ending {
            case .startup(_, let offset):
                // The first checkpoint comes within a second of the start, or the kill
                // right after that second loses more than a second.
                if let written = nextWrite(
                    of: ledgerPath + "-wal", from: trackingSince.addingTimeInterval(0.15),
                    until: trackingSince.addingTimeInterval(1.1))
                {
                    Thread.sleep(until: written.addingTimeInterval(offset))
                }
                killedAt = kill(agent)
            case .burst(let seconds, let rightAfterActivation):
                windowStart = try burst(driver, windows, &generator, dwell: 5...150) { elapsed, _ in elapsed >= seconds
                }
                if !rightAfterActivation { Thread.sleep(forTimeInterval: Double(generator.next() % 120) / 1000) }
                killedAt = kill(agent)
            case .steady(let held, let offset):
                try driver.activate(windows[held]!)
                windowStart = driver.log.entries.last!.serverTime
                let written = try XCTUnwrap(
                    nextWrite(
                        of: ledgerPath + "-wal", from: Date().addingTimeInterval(0.3),
                        until: Date().addingTimeInterval(3.3)), "a checkpoint")
                Thread.sleep(until: written.addingTimeInterval(offset))
                killedAt = kill(agent)
            case .copyingLog(let limit):
                let watcher = DatabaseWriteWatcher(path: ledgerPath, agent: agent.process.pid)
                windowStart = try burst(driver, windows, &generator, dwell: 1...12) { elapsed, _ in
                    watcher.killedAt != nil || elapsed >= limit
                }
                killedAt = watcher.killedAt ?? kill(agent)
                XCTAssertNotNil(
                    watcher.killedAt, "SQLite copied the log into the database within \(limit) s of focus changes")
            case .detachedMonitor(let held, let hold):
                try driver.activate(windows[held]!)
                windowStart = driver.log.entries.last!.serverTime
                Thread.sleep(forTimeInterval: hold)
                killedAt = kill(agent)
            }
            agent.process.waitForExit()
            logs.append(agent.process.standardError)
            try driver.activate(sentinel)

            // The killed agent's files open cleanly and hold a sound database.
            let integrity = try readOnlyIntegrityCheck(ledgerPath)
            XCTAssertEqual(integrity, ["ok"], "run \(index + 1): integrity_check")
            let usage = try agent.usage()  // the command line opens the ledger as the agent left it

            // Per application: recorded (what this run added to the ledger) against the X server.
            let truth = ActiveWindowTruth.milliseconds(driver.log.entries, from: windowStart, to: killedAt)
            var lost = 0.0
            var line = "run \(index + 1) (\(ending)):"
            for name in names {
                let recorded = usage.seconds(of: "wmclass:\(name)") - persisted.seconds(of: "wmclass:\(name)")
                let actual = (truth[windows[name]!] ?? 0) / 1000
                guard actual > 0 || recorded > 0 else { continue }
                line += " \(name) \(String(format: "%.3f", recorded))/\(String(format: "%.3f", actual)) s"
                XCTAssertLessThanOrEqual(
                    recorded, actual + 0.02, "run \(index + 1) (\(ending)): \(name) invented \(recorded - actual) s")
                lost += actual - recorded
                truthSinceRegistration[name, default: 0] += actual
                recordedSinceRegistration[name, default: 0] += recorded
            }
            line += "; lost \(Int((lost * 1000).rounded())) ms"
            report.append(line)
            // A second between checkpoints, and the agent's own scheduling delay on a shared machine.
            XCTAssertLessThanOrEqual(lost, 1.05, "run \(index + 1) (\(ending)): lost \(lost) s at one kill")
            persisted = usage
        }

        // A last run, stopped properly, with the new monitor attached.
        agent = try AgentRun(display: session.display, home: home, environment: environment)
        let finalStart = try burst(driver, windows, &generator, dwell: 20...150) { elapsed, _ in elapsed >= 1.0 }
        try driver.activate(sentinel)
        let finalEnd = driver.log.entries.last!.serverTime
        try waitFor("Epsilon's threshold in the new monitor") {
            monitors.last!.names.contains("eventDidReachThreshold(Epsilon-1.5)")
        }
        Thread.sleep(forTimeInterval: 0.3)
        XCTAssertEqual(agent.stop(), 0)
        logs.append(agent.process.standardError)
        let usage = try agent.usage()
        let finalTruth = ActiveWindowTruth.milliseconds(driver.log.entries, from: finalStart, to: finalEnd)
        for name in names {
            truthSinceRegistration[name, default: 0] += (finalTruth[windows[name]!] ?? 0) / 1000
            recordedSinceRegistration[name, default: 0] +=
                usage.seconds(of: "wmclass:\(name)") - persisted.seconds(of: "wmclass:\(name)")
        }
        print(report.joined(separator: "\n"))
        print(
            "since registration, recorded/true: "
                + names.map {
                    """
                    \($0) \(String(format: "%.2f", recordedSinceRegistration[$0] ?? 0))/\
                    \(String(format: "%.2f", truthSinceRegistration[$0] ?? 0)) s
                    """
                }.joined(separator: ", "))

        // The engine fired each callback once, whatever the kills.
        let arrivals = monitors.flatMap(\.arrivals)
        let fired = Dictionary(grouping: arrivals, by: \.name).mapValues { Set($0.map(\.sequence)) }
        XCTAssertEqual(fired["intervalDidStart"]?.count, 1, "intervalDidStart once: \(arrivals)")
        for (event, threshold) in thresholds.sorted(by: { $0.key < $1.key }) {
            let sequences = fired["eventDidReachThreshold(\(event))"] ?? []
            XCTAssertLessThanOrEqual(sequences.count, 1, "\(event) fired more than once: \(sequences)")
            if threshold.seconds <= (recordedSinceRegistration[threshold.app] ?? 0) - 0.05 {
                XCTAssertEqual(
                    sequences.count, 1,
                    "\(event): \(threshold.app) has \(recordedSinceRegistration[threshold.app] ?? 0) s recorded")
            }
            if threshold.seconds > (truthSinceRegistration[threshold.app] ?? 0) + 0.05 {
                XCTAssertEqual(sequences.count, 0, "\(event) fired for usage that never was")
            }
        }
        let agentLog = logs.joined()
        for event in thresholds.keys {
            XCTAssertLessThanOrEqual(
                agentLog.components(separatedBy: "eventDidReachThreshold(\(event))").count - 1, 1,
                "\(event) handed out twice by the engine")
        }
        // Acknowledged callbacks never come again, to any monitor; the one that was due
        // while no monitor ran came exactly once, to the new one.
        let confirmed = monitors.reduce(into: [Int64: Date]()) { all, monitor in
            all.merge(monitor.confirmed) { min($0, $1) }
        }
        for arrival in arrivals {
            if let acknowledged = confirmed[arrival.sequence] {
                XCTAssertLessThanOrEqual(
                    arrival.at, acknowledged,
                    "callback \(arrival.sequence) (\(arrival.name)) came again after its acknowledgement")
            }
        }
        XCTAssertEqual(firstMonitor.names.filter { $0 == "eventDidReachThreshold(Epsilon-1.5)" }.count, 0)
        XCTAssertEqual(monitors.last!.names.filter { $0 == "eventDidReachThreshold(Epsilon-1.5)" }.count, 1)
    }

    // MARK: Driving

    /// Focus changes among the burst applications, each held for `dwell` milliseconds,
    /// until `done` (given the seconds elapsed and the changes made). Returns the server
    /// time of the first change.
    private func burst(
        _ driver: FocusDriver, _ windows: [String: String], _ generator: inout SplitMix, dwell: ClosedRange<UInt64>,
        until done: (Double, Int) -> Bool
    ) throws -> UInt32 {
        let started = Date()
        var previous = ""
        var first: UInt32?
        var changes = 0
        repeat {
            var next = burstApps[Int(generator.next() % UInt64(burstApps.count))]
            if next == previous { next = burstApps[(burstApps.firstIndex(of: next)! + 1) % burstApps.count] }
            previous = next
            try driver.activate(windows[next]!)
            first = first ?? driver.log.entries.last!.serverTime
            changes += 1
            Thread.sleep(
                forTimeInterval: Double(dwell.lowerBound + generator.next() % (dwell.upperBound - dwell.lowerBound + 1))
                    / 1000)
        } while !done(Date().timeIntervalSince(started), changes)
        return first!
    }

    /// SIGKILL now; returns the X server's time of it (the server stamps events from CLOCK_MONOTONIC).
    private func kill(_ agent: AgentRun) -> UInt32 {
        let now = monotonicMilliseconds()
        agent.process.signal(SIGKILL)
        return now
    }

    /// When the file at `path` is next written between `from` and `until`, or nil: with
    /// the focus steady, only the one-second checkpoint writes to the ledger's log.
    private func nextWrite(of path: String, from: Date, until deadline: Date) -> Date? {
        Thread.sleep(until: from)
        let before = fileStamp(path)
        while Date() < deadline {
            if fileStamp(path) != before { return Date() }
            Thread.sleep(forTimeInterval: 0.0003)
        }
        return nil
    }

    private func waitFor(_ what: String, timeout: TimeInterval = 10, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            guard Date() < deadline else { throw HarnessError.timedOut(what) }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    private func readOnlyIntegrityCheck(_ path: String) throws -> [String] {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { try String.fetchAll($0, sql: "PRAGMA integrity_check") }
    }
}

/// The X server's clock: CLOCK_MONOTONIC in milliseconds, 32 bits.
private func monotonicMilliseconds() -> UInt32 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt32(truncatingIfNeeded: Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000)
}

/// A file's modification time and size (a write changes one or the other).
private func fileStamp(_ path: String) -> [Int64] {
    var info = stat()
    guard stat(path, &info) == 0 else { return [] }
    return [Int64(info.st_mtim.tv_sec), Int64(info.st_mtim.tv_nsec), Int64(info.st_size)]
}

/// Kills the agent the moment its database file is written: in WAL mode only a
/// checkpoint (SQLite copying its log into the database) writes there.
private final class DatabaseWriteWatcher: @unchecked Sendable {
    private let state = Mutex<UInt32?>(nil)
    var killedAt: UInt32? { state.withLock { $0 } }

    init(path: String, agent pid: Int32) {
        let before = fileStamp(path)
        Thread.detachNewThread { [self] in
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline {
                if fileStamp(path) != before {
                    let now = monotonicMilliseconds()
                    Glibc.kill(pid, SIGKILL)
                    state.withLock { $0 = now }
                    return
                }
                Thread.sleep(forTimeInterval: 0.0002)
            }
        }
    }
}

/// An app's monitor seen at the protocol's level: each callback line as it arrives,
/// with its sequence number, and the acknowledgements the agent confirmed.
private final class RecordingMonitor: Sendable {
    struct Arrival: Sendable {
        var sequence: Int64
        var name: String
        var at: Date
    }

    private let transport: SocketTransport
    private let client: ServiceClient
    private let record = Mutex<(arrivals: [Arrival], confirmed: [Int64: Date])>(([], [:]))

    init(socket: String, bundleIdentifier: String) throws {
        transport = SocketTransport(path: socket)
        client = ServiceClient(transport: transport, bundleIdentifier: bundleIdentifier)
        transport.setPushReceiver { [weak self] frame in self?.received(frame) }
        _ = try client.call(ActivityMethods.attachMonitor, Empty())
        try client.resendOnReconnect(ActivityMethods.attachMonitor, Empty())
    }

    var arrivals: [Arrival] { record.withLock { $0.arrivals } }
    var names: [String] { arrivals.map(\.name) }
    var confirmed: [Int64: Date] { record.withLock { $0.confirmed } }

    func close() { transport.close() }

    private func received(_ frame: Data) {
        guard let message = try? ActivityMethods.callback.body(from: frame) else { return }
        let name = message.event.map { "\(message.kind.rawValue)(\($0.rawValue))" } ?? message.kind.rawValue
        record.withLock { $0.arrivals.append(Arrival(sequence: message.sequence, name: name, at: Date())) }
        if (try? client.call(ActivityMethods.acknowledge, [message.sequence])) != nil {
            let now = Date()
            record.withLock { $0.confirmed[message.sequence] = $0.confirmed[message.sequence] ?? now }
        }
    }
}
