import ArgumentParser
import DeviceActivity
import Foundation
import ScreenwardCore
import SessionHarness

/// The monitor benchmark: what one focus change costs the agent's monitoring, with
/// a week of history and the most activities and events a client may register.
///
/// A focus change is what the agent's loop does when the focus moves: LiveUsage
/// closes one interval and opens another, then the engine's `takeDue` and
/// `nextDeadline`. Between focus changes the simulated clock also stops at every
/// deadline the engine announces (as the agent would wake), so callbacks fire on
/// time; those wakes are counted apart.
struct MonitorBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitor",
        abstract: "Cost of a focus change to LiveUsage and the monitor engine (no X session needed).")

    /// The targets: a focus change costs the agent's loop well under a millisecond, and
    /// no callback is late.
    enum Targets {
        static let focusChange = Target(figure: "per focus change, p99", limit: 100, unit: "µs")
        static let lateCallbacks = Target(figure: "late callbacks", limit: 0, unit: "", inclusive: true, digits: 0)
    }

    @Option(name: .customLong("focus-changes"), help: "Focus changes to time.")
    var focusChanges = 10_000

    @Option(help: "Registered activities (Apple's limit is 20).")
    var activities = 20

    @Option(name: .customLong("events"), help: "Events per activity.")
    var eventsPerActivity = 10

    @Option(help: "Applications in the synthetic catalog.")
    var applications = 40

    @Option(name: .customLong("history-days"), help: "Days of usage history in the ledger before the run.")
    var historyDays = 7.0

    @Option(help: "Seed of the workload (the same seed gives the same run).")
    var seed: UInt64 = 2026

    @Option(help: "Directory the figures are written to, as JSON (monitor.json).")
    var output = "bench-results"

    @Option(
        name: .customLong("callbacks-log"),
        help: "Also write every callback, one a line, to this file (to compare runs).")
    var callbacksLog: String?

    func validate() throws {
        guard focusChanges >= 1 else { throw ValidationError("--focus-changes must be positive") }
        guard activities >= 1, eventsPerActivity >= 0, applications >= 2 else {
            throw ValidationError("--activities, --events and --applications must leave something to run")
        }
    }

    func run() throws {
        var random = SplitMix(seed: seed)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Berlin")!
        // Three weeks that take in the change to summer time (29 March 2026).
        var now = calendar.date(from: DateComponents(year: 2026, month: 3, day: 16, hour: 8))!

        let workload = MonitorWorkload(applicationCount: applications)
        let ledger = try Ledger()
        let historyIntervals = try workload.writeHistory(
            to: ledger, span: historyDays * 86_400, before: now, &random)
        // As the agent's owner stack has it: the accountant and the engine use it on one loop.
        let live = LiveUsage(forwardingTo: DiscardingSink(), categories: workload.categories)
        let seedStart = ContinuousClock.now
        try live.seed(from: ledger, now: now)
        let seedTime = ContinuousClock.now - seedStart

        let engine = try MonitorEngine(ledger: ledger, usage: live)
        for index in 0..<activities {
            try engine.register(
                DeviceActivityName("activity\(index)"), owner: "org.example.bench",
                schedule: workload.schedule(index, &random), events: workload.events(count: eventsPerActivity, &random),
                at: now)
        }
        var callbacks: [MonitorCallback] = try engine.takeDue(now: now, calendar: calendar, isPresent: true)

        print(
            """
            Screenward monitor benchmark: \(activities) activities × \(eventsPerActivity) events, \(applications) \
            applications in \(MonitorWorkload.categoryNames.count) categories
            """
        )
        print(
            """
              history: \(historyIntervals) intervals over \(format(historyDays, 0)) days, seeded into LiveUsage \
            in \(format(seedTime.microseconds / 1000)) ms
            """
        )

        var focused = workload.nextApplication(after: nil, &random)
        var openID = try live.intervalOpened(
            app: workload.applications[focused].identity, token: workload.applications[focused].token, at: now)
        var openedAt = now
        var deadline = engine.nextDeadline(now: now, calendar: calendar, isPresent: true)
        var changeCosts: [Double] = []
        var wakeCosts: [Double] = []
        changeCosts.reserveCapacity(focusChanges)
        let firstInstant = now

        for _ in 0..<focusChanges {
            let change = now.addingTimeInterval(MonitorWorkload.dwell(&random))
            // The agent sleeps until the engine's deadline, or the focus change.
            while let due = deadline, due < change {
                guard due > now else {
                    throw ValidationError("the engine announced \(due), not after \(now): it would spin")
                }
                now = due
                let start = ContinuousClock.now
                callbacks += try engine.takeDue(now: now, calendar: calendar, isPresent: true)
                deadline = engine.nextDeadline(now: now, calendar: calendar, isPresent: true)
                wakeCosts.append((ContinuousClock.now - start).microseconds)
            }
            now = change
            focused = workload.nextApplication(after: focused, &random)
            let app = workload.applications[focused]

            let start = ContinuousClock.now
            try live.intervalClosed(openID, duration: .seconds(now.timeIntervalSince(openedAt)), reason: .focusChange)
            openID = try live.intervalOpened(app: app.identity, token: app.token, at: now)
            callbacks += try engine.takeDue(now: now, calendar: calendar, isPresent: true)
            deadline = engine.nextDeadline(now: now, calendar: calendar, isPresent: true)
            changeCosts.append((ContinuousClock.now - start).microseconds)
            openedAt = now
        }

        let simulatedDays = now.timeIntervalSince(firstInstant) / 86_400
        let change = Summary(changeCosts)
        let wake = Summary(wakeCosts)
        var byKind: [String: Int] = [:]
        for callback in callbacks { byKind[callback.kind.rawValue, default: 0] += 1 }

        print(
            """
              \(focusChanges) focus changes over \(format(simulatedDays, 1)) simulated days; \(wakeCosts.count) \
            deadline wakes between them
            """
        )
        print("\nPer focus change (LiveUsage update + takeDue + nextDeadline), µs:")
        print(
            """
              p50 \(format(change.p50))  p90 \(format(change.p90))  p99 \(format(change.p99))  max \
            \(format(change.max))  mean \(format(change.mean))
            """
        )
        print("Per deadline wake (takeDue + nextDeadline), µs:")
        print(
            """
              p50 \(format(wake.p50))  p90 \(format(wake.p90))  p99 \(format(wake.p99))  max \
            \(format(wake.max))  mean \(format(wake.mean))
            """
        )
        print("\nCallbacks fired: \(callbacks.count)")
        for kind in MonitorCallback.Kind.allCases {
            print("  \(kind.rawValue.padding(toLength: 32, withPad: " ", startingAt: 0)) \(byKind[kind.rawValue] ?? 0)")
        }
        print("  late: \(callbacks.filter(\.isLate).count)")

        var figures: [String: Any] = [
            "date": ISO8601DateFormatter().string(from: Date()),
            "focus_changes": focusChanges, "activities": activities, "events_per_activity": eventsPerActivity,
            "applications": applications, "categories": MonitorWorkload.categoryNames.count, "seed": seed,
            "history_intervals": historyIntervals, "history_days": historyDays, "seed_ms": seedTime.microseconds / 1000,
            "simulated_days": simulatedDays,
            "focus_change_us": change.json, "deadline_wakes": wakeCosts.count, "deadline_wake_us": wake.json,
            "callbacks": callbacks.count, "callbacks_by_kind": byKind,
            "late_callbacks": callbacks.filter(\.isLate).count,
        ]
        if let callbacksLog {
            let lines = callbacks.map {
                "\($0) due \($0.scheduledAt.timeIntervalSince1970) delivered \($0.deliveredAt.timeIntervalSince1970)"
            }
            try (lines.joined(separator: "\n") + "\n").write(toFile: callbacksLog, atomically: true, encoding: .utf8)
        }
        var verdicts = Verdicts()
        verdicts.check(Targets.focusChange, change.p99)
        verdicts.check(Targets.lateCallbacks, Double(callbacks.filter(\.isLate).count))
        verdicts.printLines()
        verdicts.record(in: &figures)
        let url = try writeFigures(figures, name: "monitor", to: output)
        print("\nFigures written to \(url.path)")
        try verdicts.exitIfMissed()
    }
}

/// Percentiles, maximum and mean of a set of timings.
struct Summary {
    var p50 = 0.0, p90 = 0.0, p99 = 0.0, max = 0.0, mean = 0.0

    init(_ values: [Double]) {
        guard !values.isEmpty else { return }
        let sorted = values.sorted()
        func percentile(_ p: Double) -> Double { sorted[Swift.min(sorted.count - 1, Int(Double(sorted.count) * p))] }
        p50 = percentile(0.5)
        p90 = percentile(0.9)
        p99 = percentile(0.99)
        max = sorted[sorted.count - 1]
        mean = values.reduce(0, +) / Double(values.count)
    }

    var json: [String: Double] { ["p50": p50, "p90": p90, "p99": p99, "max": max, "mean": mean] }
}

extension Duration {
    var microseconds: Double { seconds * 1e6 }
}
