import CProgramStart
import Foundation
import Synchronization

/// What every Screenward program does first, before it opens anything: it makes the
/// descriptors it was handed safe to use and to hand on. The API does it too, on an app's
/// first use (the first socket it opens).
///
/// - A closed standard input, output or error (cron, a service manager, a parent that closed
///   its own, `prog <&- 2>&-`) is opened on /dev/null, as OpenSSH and daemons do. Otherwise
///   that number goes to the next file or socket the program opens: its log lines would go
///   into its database, and a program it starts with Foundation's `Process` would get one of
///   its pipes' ends closed or crossed (Foundation closes the parent's ends in the child after
///   moving the child's into place).
/// - An inherited descriptor numbered above the soft limit on open files (a parent holding
///   hundreds of files started it through `runuser`, whose session lowers the soft limit to
///   1024, and Foundation hands every child its own bookkeeping socket) would stop
///   Foundation's `Process` from starting anything: it asks to close every descriptor up to
///   the highest open one, and the C library refuses a number above the limit with EBADF.
///   The soft limit is raised to the hard one when that is so.
public enum ProgramStart {
    private static let done = Mutex(false)

    /// Once per process.
    public static func prepare() {
        done.withLock { done in
            guard !done else { return }
            done = true
            // If even /dev/null cannot be opened, or the limit not raised, there is nothing
            // better to do: the program goes on as it would have.
            _ = StandardStreams.reopenClosed()
            _ = screenward_inherited_descriptors_fit()
        }
    }
}

extension ProgramStart {
    /// Raises the soft limit on open files to the hard one (a server's, so that clients'
    /// connections cannot take the descriptors it needs for its own work). Returns the
    /// limit now, or nil when it could not be read or raised.
    public static func raiseOpenFilesLimit() -> Int? {
        let limit = screenward_open_files_limit_raise()
        return limit < 0 ? nil : limit
    }
}

/// Standard input, output and error.
public enum StandardStreams {
    /// Opens /dev/null on each of descriptors 0, 1 and 2 that is closed now; returns which were.
    @discardableResult
    public static func reopenClosed() -> [Int32] {
        let opened = screenward_standard_streams_open()
        guard opened > 0 else { return [] }
        return (0...2).filter { opened & (1 << $0) != 0 }
    }
}
