import ArgumentParser
import Foundation
import ScreenwardCore
import SessionHarness

/// How fast the activity picker opens with hundreds of applications: `screenward-picker
/// --choose` started again and again under Xvfb + openbox, timed from the moment it is
/// started to its trace's `picker ready` line: the first frame of its window being drawn
/// with the catalog loaded and every row built (GTK's first "draw" of the window). That
/// covers starting the process, GTK, reading every desktop entry, the list's rows and
/// the first layout; icons are loaded as rows are drawn, so the first frame's are in it.
/// The rows past the first screen are built after that frame: the time to `picker
/// complete` (every row built) is reported too.
struct PickerBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "picker",
        abstract: """
            Activity picker started → its list shown and ready, with hundreds of applications (Xvfb + openbox).
            """)

    enum Targets {
        static let ready = Target(
            figure: "picker started → list shown and ready, p99", limit: 300, unit: "ms", digits: 0)
    }

    @Option(help: "Desktop entries generated in a private XDG folder (the machine's own are listed too).")
    var applications = 500
    @Option(help: "Times the picker is opened.")
    var runs = 20
    @Option(help: "Directory the figures are written to, as JSON.")
    var output = "bench-results"

    func validate() throws {
        guard applications >= 1, runs >= 1 else { throw ValidationError("--applications ≥ 1, --runs ≥ 1") }
    }

    func run() throws {
        let session = try PrivateXSession()
        defer { session.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "screenward-bench-picker-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let generated = try GeneratedApplications(count: applications, in: folder.appendingPathComponent("data"))
        let environment = generated.environment.merging([
            "DISPLAY": session.display, "SCREENWARD_PICKER_TRACE": "1",
            "SCREENWARD_HOME": folder.appendingPathComponent("home").path,
        ]) { $1 }
        let program = try ProjectPrograms.url(of: "screenward-picker")
        print(
            """
            Screenward activity picker benchmark on \(session.display) (Xvfb + openbox): \(applications) \
            generated applications, \(runs) runs
            """
        )

        var ready: [Double] = []
        var complete: [Double] = []
        var listed = 0
        func milliseconds(since start: ContinuousClock.Instant) -> Double { (ContinuousClock.now - start).milliseconds }
        for _ in 0..<runs {
            let started = ContinuousClock.now
            let picker = try ChildProcess(program, ["--choose"], environment: environment)
            try picker.waitForStandardError(containing: PickerTraceLine.readyPrefix, timeout: 20)
            ready.append(milliseconds(since: started))
            try picker.waitForStandardError(containing: PickerTraceLine.completePrefix, timeout: 20)
            complete.append(milliseconds(since: started))
            listed = Self.listedApplications(in: picker.standardError) ?? listed
            picker.signal(SIGTERM)
            _ = picker.waitForExit(timeout: 5)
        }
        print("Applications listed: \(listed) (\(applications) generated, the rest the machine's own)")
        var json: [String: Any] = [:]
        for (name, samples, what) in [
            ("ready", ready, "list shown and ready"), ("complete", complete, "every row built"),
        ] {
            let sorted = samples.sorted()
            let figures = [
                ("min", sorted.first!), ("p50", percentile(0.5, of: sorted)), ("p90", percentile(0.9, of: sorted)),
                ("p99", percentile(0.99, of: sorted)), ("max", sorted.last!),
            ]
            print("Started → \(what) (ms): " + figures.map { "\($0.0) \(format($0.1, 0))" }.joined(separator: ", "))
            for (figure, value) in figures { json["\(name)_\(figure)_ms"] = value }
            json["\(name)_samples_ms"] = samples
        }

        var verdicts = Verdicts()
        verdicts.check(Targets.ready, percentile(0.99, of: ready.sorted()))
        verdicts.printLines()
        json["applications_generated"] = applications
        json["applications_listed"] = listed
        json["runs"] = runs
        verdicts.record(in: &json)
        print("Figures written to \(try writeFigures(json, name: "picker", to: output).path)")
        try verdicts.exitIfMissed()
    }

    /// The count of the trace's `picker ready: N applications` line.
    static func listedApplications(in trace: String) -> Int? {
        guard let line = trace.split(separator: "\n").first(where: { $0.hasPrefix(PickerTraceLine.readyPrefix) }) else {
            return nil
        }
        return Int(line.dropFirst(PickerTraceLine.readyPrefix.count).split(separator: " ").first ?? "")
    }
}
