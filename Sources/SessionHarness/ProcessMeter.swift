import Foundation

/// What the kernel says a process has cost: CPU time, wakeups and peak memory.
public struct ProcessMeter: Sendable {
    public let pid: Int32

    public init(pid: Int32) { self.pid = pid }

    public struct Sample: Sendable {
        /// CPU time of all threads, seconds (from schedstat, nanosecond resolution).
        public var cpuSeconds: Double
        /// Context switches of all threads: each voluntary one is a sleep that ended, a wakeup.
        public var voluntarySwitches: Int
        public var involuntarySwitches: Int
    }

    public func sample() throws -> Sample {
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")
        var sample = Sample(cpuSeconds: 0, voluntarySwitches: 0, involuntarySwitches: 0)
        for task in tasks {
            let base = "/proc/\(pid)/task/\(task)"
            if let schedstat = try? String(contentsOfFile: base + "/schedstat", encoding: .utf8),
                let nanoseconds = schedstat.split(separator: " ").first.flatMap({ Double($0) })
            {
                sample.cpuSeconds += nanoseconds / 1e9
            }
            let status = (try? String(contentsOfFile: base + "/status", encoding: .utf8)) ?? ""
            sample.voluntarySwitches += Self.field(status, "voluntary_ctxt_switches") ?? 0
            sample.involuntarySwitches += Self.field(status, "nonvoluntary_ctxt_switches") ?? 0
        }
        return sample
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
            return Int(line.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "")
        }
        return nil
    }
}
