import CStandardStreams
import Foundation
import Synchronization

/// Standard input, output and error, made safe to use and to hand on before anything else
/// opens a file.
///
/// A program started with one of them closed (by cron, a service manager, a parent that
/// closed its own, `prog <&- 2>&-`) would otherwise give that number to the next file or
/// socket it opens: its log lines would go into its database, and a program it starts with
/// Foundation's `Process` would get one of its pipes' ends closed or crossed (Foundation
/// closes the parent's ends in the child after moving the child's into place). Every
/// Screenward program calls `secure()` first; so does the API the first time an app uses it.
/// A closed one is opened on /dev/null, as OpenSSH and daemons do.
public enum StandardStreams {
    private static let done = Mutex(false)

    /// Opens /dev/null on each of descriptors 0, 1 and 2 that is closed; once per process.
    public static func secure() {
        done.withLock { done in
            guard !done else { return }
            done = true
            _ = reopenClosed()
        }
    }

    /// Opens /dev/null on each of descriptors 0, 1 and 2 that is closed now; returns which were.
    /// (If even /dev/null cannot be opened there is nothing better to do: the program goes on
    /// as it would have.)
    @discardableResult
    public static func reopenClosed() -> [Int32] {
        let opened = screenward_standard_streams_open()
        guard opened > 0 else { return [] }
        return (0...2).filter { opened & (1 << $0) != 0 }
    }
}
