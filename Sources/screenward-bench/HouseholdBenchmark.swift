import ArgumentParser
import Foundation
import Household
import ScreenwardCore
import SessionHarness
import Synchronization

/// A household's figures (docs/household.md), against a real PostgreSQL server started for
/// the run, with the household's real sync (`HouseholdSync`, two connections each) for each
/// simulated computer, all in this process; the children's usage is written to real ledgers
/// (in memory) as a daemon's agent reports would write it.
///
/// The first figures are taken before the lab's load starts (the other computers idle).
///
/// - Usage: computer 0 writes a new interval of a child's, and the figure runs until computer
///   1's sync hands over that child's usage elsewhere with it in.
/// - Approval: a child's request for more time written on computer 0; once computer 1 lists
///   it, a guardian there answers; the figure runs until computer 0's sync hands the answer
///   over to be applied (the daemon then lifts the shield: about 0.1 s more, HouseholdTests).
/// - A school lab: `--computers` computers with `--children` children each (each child on two
///   neighbouring computers), every child's interval growing every second on one of them, for
///   `--lab-seconds`; the same two figures under that load, and the CPU the database and the
///   computers took (the computers share this process: their CPU is its, divided by them).
struct HouseholdBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "household",
        abstract: "A household's computers: usage and approvals across them, alone and in a school lab (as root).")

    enum Targets {
        static let usage = Target(
            figure: "usage on one computer → counted on another, p99", limit: 1000, unit: "ms", inclusive: true,
            digits: 0)
        static let approval = Target(
            figure: "approval on one computer → handed over on another, p99", limit: 1000, unit: "ms",
            inclusive: true, digits: 0)
        static let labUsage = Target(
            figure: "in the lab: usage on one computer → counted on another, p99", limit: 1000, unit: "ms",
            inclusive: true, digits: 0)
        static let labApproval = Target(
            figure: "in the lab: approval on one computer → handed over on another, p99", limit: 1000, unit: "ms",
            inclusive: true, digits: 0)
    }

    @Option(help: "Samples of each figure.") var samples = 60
    @Option(help: "The lab's computers.") var computers = 30
    @Option(help: "Children per computer in the lab.") var children = 10
    @Option(help: "How long the lab runs, in seconds (0: no lab).") var labSeconds = 600
    @Option(help: "Directory the figures are written to, as JSON.") var output = "bench-results"

    func validate() throws {
        guard samples >= 1, computers >= 2, children >= 1, labSeconds >= 0 else {
            throw ValidationError("--samples ≥ 1, --computers ≥ 2, --children ≥ 1, --lab-seconds ≥ 0")
        }
    }

    func run() throws {
        if let missing = TemporaryPostgres.missingRequirement() {
            print("household: cannot run: \(missing)")
            throw ExitCode.failure
        }
        let users = LocalUsers()
        defer { users.removeAll() }
        let database = try TemporaryPostgres(users: users)
        defer { database.stop() }
        let folder = URL(fileURLWithPath: "/tmp/screenward-household-bench-\(UUID().uuidString)")
        users.note("folder \(folder.path)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var figures: [String: Any] = ["date": ISO8601DateFormatter().string(from: Date())]
        var verdicts = Verdicts()

        let server = SimulatedHousehold.Server(
            owner: database.owner, socketDirectory: database.socketDirectory, port: database.port)
        let (count, children) = (labSeconds > 0 ? computers : 2, children)
        let lab = try blocking {
            try await SimulatedHousehold.make(computers: count, childrenEach: children, server: server, folder: folder)
        }
        defer { lab.stop() }
        print("Before the load: computers 0 and 1 of \(count), nothing else writing")
        let alone = try lab.measure(samples: samples)
        report(alone, prefix: "", into: &figures, &verdicts, usage: Targets.usage, approval: Targets.approval)

        if labSeconds > 0 {
            print(
                "\nThe lab: \(computers) computers with \(children) children each, each child's use growing each second"
            )
            let cpuBefore = (database: database.cpuSeconds(), process: ProcessCPU.ofThisProcess())
            let started = Date()
            lab.startLoad()
            Thread.sleep(forTimeInterval: min(10, Double(labSeconds) / 4))
            let loaded = try lab.measure(samples: samples, spreadOver: max(0, Double(labSeconds) - 10))
            let left = Double(labSeconds) - Date().timeIntervalSince(started)
            if left > 0 { Thread.sleep(forTimeInterval: left) }
            let elapsed = Date().timeIntervalSince(started)
            lab.stopLoad()
            let databaseCPU = (database.cpuSeconds() - cpuBefore.database) / elapsed * 100
            let processCPU = (ProcessCPU.ofThisProcess() - cpuBefore.process) / elapsed * 100
            print(
                """
                  ran \(Int(elapsed)) s, \(lab.intervalsWritten) interval writes
                  the database's CPU: \(format(databaseCPU, 1)) % of a core, \
                \(format(databaseCPU / Double(computers), 2)) % per computer
                  the computers' CPU (this process): \(format(processCPU, 1)) % of a core, \
                \(format(processCPU / Double(computers), 2)) % per computer
                """)
            figures["lab"] = [
                "computers": computers, "children_per_computer": children, "seconds": elapsed,
                "database_cpu_percent": databaseCPU,
                "database_cpu_percent_per_computer": databaseCPU / Double(computers),
                "computers_cpu_percent": processCPU, "cpu_percent_per_computer": processCPU / Double(computers),
            ]
            report(
                loaded, prefix: "lab_", into: &figures, &verdicts, usage: Targets.labUsage,
                approval: Targets.labApproval)
        }
        verdicts.printLines()
        verdicts.record(in: &figures)
        print("Figures written to \(try writeFigures(figures, name: "household", to: output).path)")
        try verdicts.exitIfMissed()
    }

    private func report(
        _ measured: (usage: [Double], approval: [Double]), prefix: String, into figures: inout [String: Any],
        _ verdicts: inout Verdicts, usage: Target, approval: Target
    ) {
        for (name, samples, target) in [("usage", measured.usage, usage), ("approval", measured.approval, approval)] {
            let sorted = samples.sorted()
            guard !sorted.isEmpty else { continue }
            func at(_ p: Double) -> Double { percentile(p, of: sorted) }
            print(
                """
                  \(name) (ms, \(sorted.count) samples): p50 \(format(at(0.5), 0)), p90 \(format(at(0.9), 0)), \
                p99 \(format(at(0.99), 0)), max \(format(sorted.last ?? 0, 0))
                """)
            figures["\(prefix)\(name)_ms"] = [
                "p50": at(0.5), "p90": at(0.9), "p99": at(0.99), "max": sorted.last ?? 0, "samples": sorted.count,
            ]
            verdicts.check(target, at(0.99))
        }
    }
}

/// Runs `body` to its end from synchronous code.
func blocking<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value) throws -> Value {
    let result = Mutex<Result<Value, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        do {
            let value = try await body()
            result.withLock { $0 = .success(value) }
        } catch {
            result.withLock { $0 = .failure(error) }
        }
        done.signal()
    }
    done.wait()
    return try result.withLock { $0! }.get()
}
