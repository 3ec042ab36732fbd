import ArgumentParser
import Foundation
import SessionHarness

@main
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "screenward-bench",
        abstract:
            """
            Measure Screenward: focus tracking, threshold callbacks and shields through the real agent in a \
            private Xvfb + openbox session, and the monitor engine's cost.
            """,
        discussion: """
            Each benchmark compares its figures with its targets at the end, prints a verdict per figure and \
            writes the verdicts with the figures. Exit status: 0 when every target is met, \
            \(Verdicts.missedExitCode) when a figure missed its target, another non-zero status when the \
            benchmark could not run.
            """,
        subcommands: [
            TrackingBenchmark.self, ThresholdBenchmark.self, LaunchBenchmark.self, MonitorBenchmark.self,
            ShieldBenchmark.self, AgentKillBenchmark.self, ChildBoundaryBenchmark.self,
            RulesBenchmark.self, ReportBenchmark.self, PickerBenchmark.self, WebBenchmark.self,
            HouseholdBenchmark.self, VideoBenchmark.self, DisplaysBenchmark.self, LaunchMonitorCommand.self,
        ],
        defaultSubcommand: TrackingBenchmark.self)
}

/// Writes figures where the README says they go and prints where.
func writeFigures(_ figures: [String: Any], name: String, to directory: String) throws -> URL {
    let folder = URL(fileURLWithPath: directory, isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let url = folder.appendingPathComponent("\(name).json")
    let data = try JSONSerialization.data(withJSONObject: figures, options: [.prettyPrinted, .sortedKeys])
    try data.write(to: url)
    return url
}

/// The nearest-rank percentile `p` (0…1] of `sorted` (ascending, not empty).
func percentile(_ p: Double, of sorted: [Double]) -> Double {
    sorted[min(sorted.count - 1, Int((p * Double(sorted.count)).rounded(.up)) - 1)]
}

extension Duration {
    var milliseconds: Double { Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15 }
}

func format(_ value: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", value) }

/// What one figure must stay under. Each benchmark states its targets together, at its top.
struct Target: Sendable {
    /// The figure, as the verdict line and the JSON name it.
    var figure: String
    var limit: Double
    var unit: String
    /// Whether the limit itself still meets the target (`≤`, for counts that must be 0) or not (`<`).
    var inclusive = false
    /// Decimals when the figure is printed.
    var digits = 2

    func isMet(by value: Double) -> Bool { inclusive ? value <= limit : value < limit }

    var statement: String { "\(inclusive ? "≤" : "<") \(quantity(limit, limit.rounded() == limit ? 0 : digits))" }

    /// `value` with this target's decimals and unit.
    func quantity(_ value: Double, _ digits: Int? = nil) -> String {
        format(value, digits ?? self.digits) + (unit.isEmpty ? "" : " \(unit)")
    }
}

/// Each measured figure against its target: one verdict line per figure, the same
/// verdicts in the JSON, and the exit status.
struct Verdicts {
    /// The exit status of a benchmark that ran to the end and missed a target (1 is
    /// what a benchmark that could not run exits with).
    static let missedExitCode: Int32 = 2

    private(set) var entries: [(target: Target, value: Double)] = []

    mutating func check(_ target: Target, _ value: Double) {
        entries.append((target, value))
    }

    var missed: [Target] { entries.filter { !$0.target.isMet(by: $0.value) }.map(\.target) }

    var json: [[String: Any]] {
        entries.map { entry in
            [
                "figure": entry.target.figure, "value": entry.value, "unit": entry.target.unit,
                "limit": entry.target.limit,
                "target": entry.target.statement, "met": entry.target.isMet(by: entry.value),
            ]
        }
    }

    /// Adds the verdicts to `figures` (`verdicts`, and `targets_met`).
    func record(in figures: inout [String: Any]) {
        figures["verdicts"] = json
        figures["targets_met"] = missed.isEmpty
    }

    /// Prints one line per figure, then what was missed.
    func printLines() {
        print("\nTargets:")
        for (target, value) in entries {
            let verdict = target.isMet(by: value) ? "met   " : "MISSED"
            print("  \(verdict)  \(target.figure): \(target.quantity(value)) (target \(target.statement))")
        }
        let missed = missed
        if missed.isEmpty {
            print("All \(entries.count) targets met.")
        } else {
            print(
                "MISSED \(missed.count) of \(entries.count) targets: \(missed.map(\.figure).joined(separator: "; ")).")
        }
    }

    /// Ends the benchmark with `missedExitCode` when a figure missed its target.
    func exitIfMissed() throws {
        if !missed.isEmpty { throw ExitCode(Self.missedExitCode) }
    }
}
