import GRDB

extension Configuration {
    /// How Screenward opens its SQLite files (the ledgers, the daemon's state): WAL lets
    /// readers (the CLI) read while the owner writes; NORMAL sync keeps every committed
    /// transaction across a crash of the process (not of the kernel); a busy file is
    /// waited for up to 5 s.
    package static var screenwardFile: Configuration {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        return configuration
    }
}
