import Foundation

/// The processes running a program, read from /proc (tests that check what runs, and as whom).
public enum RunningPrograms {
    /// Each live process whose executable is `program` (its real path), with its real uid.
    public static func processes(running program: String) -> [(pid: Int32, uid: UInt32)] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).compactMap { pid in
            guard (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")) == program,
                let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Uid:") }),
                let uid = line.split(whereSeparator: \.isWhitespace).dropFirst().first.flatMap({ UInt32($0) })
            else { return nil }
            return (pid, uid)
        }
    }
}
