import Foundation

/// Whether the system daemon holds a process of a managed child's (a shielded app's): frozen in
/// a cgroup of the daemon's, or stopped where there is no cgroup v2 it may write.
public enum HeldProcess {
    public static func isHeld(_ pid: Int32) -> Bool {
        let cgroup = (try? String(contentsOfFile: "/proc/\(pid)/cgroup", encoding: .utf8)) ?? ""
        return cgroup.contains("screenward-held-") || state(of: pid) == "T"
    }

    /// The process's state letter (`/proc/PID/stat`), nil once it is gone.
    public static func state(of pid: Int32) -> String? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.range(of: ")", options: .backwards)
        else {
            return nil
        }
        return stat[close.upperBound...].trimmingCharacters(in: .whitespaces).first.map(String.init)
    }
}
