import GRDB
import ScreenwardBasics
import Synchronization

/// Checkpoints of the ledger's write-ahead log, on a connection of their own.
///
/// Left to itself, SQLite checkpoints on the connection whose commit fills the log past
/// 1,000 pages, and a checkpoint waits for two fsyncs (the log's, then the database's). The
/// ledger has one connection for its owner's writes: a checkpoint taken by the writer
/// thread's commit held it for 7 ms, and the loop's next write (recording a monitor's
/// callback, which must be committed before it is sent) waited that long. A passive
/// checkpoint here holds no lock a writer needs: SQLite lets writers append to the log
/// while it copies what was committed. SQLite's own checkpoints stay as a backstop for a
/// log that grows faster than this one is run.
final class LogCheckpoints: Sendable {
    private let path: String
    /// Opened at the first checkpoint: most runs of a program that writes little need none.
    private let connection = Mutex<DatabaseQueue?>(nil)

    /// Nil for a ledger in memory (it has no log).
    init?(_ ledger: Ledger) {
        guard let path = ledger.path else { return nil }
        self.path = path
    }

    /// Copies what was committed to the log into the database, without waiting for
    /// readers or writers.
    func run() throws {
        try connection.withLock { connection in
            let queue = try connection ?? DatabaseQueue(path: path, configuration: .screenwardFile)
            connection = queue
            try queue.writeWithoutTransaction { try $0.checkpoint(.passive) }
        }
    }
}
