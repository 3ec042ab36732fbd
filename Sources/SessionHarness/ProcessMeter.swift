import Foundation

/// What the kernel says a process has cost: CPU time, wakeups and peak memory.
public struct ProcessMeter: Sendable {
    public let pid: Int32

    public init(pid: Int32) { self.pid = pid }

    /// Counters of one thread.
    public struct ThreadCounters: Sendable {
        /// CPU time, seconds (from schedstat, nanosecond resolution).
        public var cpuSeconds: Double
        /// Voluntary context switches: each is a sleep that ended, a wakeup.
        public var voluntarySwitches: Int
        public var involuntarySwitches: Int
    }

    /// The counters of every live thread, by thread id.
    public struct Sample: Sendable {
        public var threads: [String: ThreadCounters]
    }

    /// What happened between two samples. Threads that started count in full;
    /// threads that ended are listed, since what they did after `before` is gone
    /// with them (the kernel keeps no per-thread counters of dead threads).
    public struct Delta: Sendable {
        public var cpuSeconds: Double
        public var wakeups: Int
        public var threadsStarted: Int
        public var threadsEnded: Int
    }

    public func sample() throws -> Sample {
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")
        var threads: [String: ThreadCounters] = [:]
        for task in tasks {
            let base = "/proc/\(pid)/task/\(task)"
            guard let status = try? String(contentsOfFile: base + "/status", encoding: .utf8) else { continue }
            let schedstat = (try? String(contentsOfFile: base + "/schedstat", encoding: .utf8)) ?? ""
            threads[task] = ThreadCounters(
                cpuSeconds: (schedstat.split(separator: " ").first.flatMap { Double($0) } ?? 0) / 1e9,
                voluntarySwitches: Self.field(status, "voluntary_ctxt_switches") ?? 0,
                involuntarySwitches: Self.field(status, "nonvoluntary_ctxt_switches") ?? 0)
        }
        return Sample(threads: threads)
    }

    public static func delta(from before: Sample, to after: Sample) -> Delta {
        var delta = Delta(cpuSeconds: 0, wakeups: 0, threadsStarted: 0, threadsEnded: 0)
        for (id, now) in after.threads {
            let then = before.threads[id] ?? ThreadCounters(cpuSeconds: 0, voluntarySwitches: 0, involuntarySwitches: 0)
            if before.threads[id] == nil { delta.threadsStarted += 1 }
            delta.cpuSeconds += now.cpuSeconds - then.cpuSeconds
            delta.wakeups += now.voluntarySwitches - then.voluntarySwitches
        }
        delta.threadsEnded = before.threads.keys.filter { after.threads[$0] == nil }.count
        return delta
    }

    /// The peak resident set size (VmHWM), in MiB.
    public func peakResidentMiB() throws -> Double {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let kilobytes = Self.field(status, "VmHWM") else { throw HarnessError.failed("no VmHWM for pid \(pid)") }
        return Double(kilobytes) / 1024
    }

    public func threadCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").count) ?? 0
    }

    static func field(_ status: String, _ name: String) -> Int? {
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            return Int(
                line.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "")
        }
        return nil
    }
}
