import Foundation
import Glibc

/// The raw calls on another user's terminal the daemon makes as root: a line written to it,
/// and when it last had input or output.
public enum Terminals {
    /// Writes `text` to the terminal at `path` (`/dev/pts/3`, `/proc/PID/fd/2`); says whether
    /// all of it was written. Opened without becoming the writer's controlling terminal
    /// (a daemon that leads its own session would otherwise be hung up with the child's
    /// terminal) and without waiting on a terminal that does not read.
    @discardableResult
    public static func write(_ text: String, to path: String) -> Bool {
        let descriptor = open(path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        guard isatty(descriptor) == 1 else { return false }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        return written == bytes.count
    }

    /// When the terminal at `path` last had input (its access time) or output (its
    /// modification time), as the kernel keeps them: to 8 s. Nil when it cannot be read.
    public static func lastActivity(of path: String) -> Date? {
        var facts = stat()
        guard stat(path, &facts) == 0, (facts.st_mode & S_IFMT) == S_IFCHR else { return nil }
        func date(_ time: timespec) -> Date {
            Date(timeIntervalSince1970: TimeInterval(time.tv_sec) + TimeInterval(time.tv_nsec) / 1e9)
        }
        return max(date(facts.st_atim), date(facts.st_mtim))
    }
}
