import Foundation

/// The processes running a program, read from /proc (tests that check what runs, and as whom).
public enum RunningPrograms {
    /// Each live process whose executable is `program` (its real path), with its real uid;
    /// with `environment` (`NAME=value`), only those started with it (a test's own, when other
    /// tests run the same program at the same time).
    public static func processes(running program: String, environment: String? = nil) -> [(pid: Int32, uid: UInt32)] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).compactMap { pid in
            guard (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")) == program,
                environment.map({ started(pid, with: $0) }) ?? true,
                let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Uid:") }),
                let uid = line.split(whereSeparator: \.isWhitespace).dropFirst().first.flatMap({ UInt32($0) })
            else { return nil }
            return (pid, uid)
        }
    }

    private static func started(_ pid: Int32, with variable: String) -> Bool {
        guard let environ = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { return false }
        return environ.split(separator: 0).contains { String(decoding: $0, as: UTF8.self) == variable }
    }
}
