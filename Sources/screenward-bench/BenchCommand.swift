import ArgumentParser
import Foundation
import SessionHarness

@main
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "screenward-bench",
        abstract: "Measure Screenward: focus tracking, threshold callbacks and shields through the real agent in a private Xvfb + openbox session, and the monitor engine's cost.",
        subcommands: [TrackingBenchmark.self, ThresholdBenchmark.self, MonitorBenchmark.self, ShieldBenchmark.self],
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

func format(_ value: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", value) }
