import Foundation
import GRDB
import ScreenwardIPC

/// The check every opening of the ledger goes through before anything may write to
/// it: a damaged ledger, or one a newer Screenward wrote, is refused and left exactly
/// as it is, so it can be moved aside and recovered.
///
/// Opening a WAL database read-write is not harmless: SQLite replays the log, drops
/// whatever follows a frame that fails its checksum, and the last connection to
/// close copies the log into the database and deletes it. So the log is read as
/// bytes first, and the database through a read-only connection (which writes
/// neither file; SQLite may create the `-shm` index, which holds no data).
extension Ledger {
    /// Throws `LedgerError.damaged`, `.newerSchema` or `.unreadable` when the ledger
    /// at `url` must not be used; a ledger that does not exist yet passes.
    ///
    /// Cost: SQLite's `quick_check` reads every page: 17 ms for a month of heavy use
    /// (86 400 intervals, 8 MB), 130 ms for a year (100 MB), measured on the 2-core
    /// build machine; `integrity_check`, which also compares indexes with their
    /// tables, takes twice to three times as long. The pass over the write-ahead log
    /// (at most about 4 MB before SQLite copies it in) takes under a millisecond in a
    /// release build.
    public static func verify(at url: URL) throws {
        let path = url.path
        let walPath = path + "-wal"
        let databaseSize = fileSize(path)
        let walSize = fileSize(walPath) ?? 0
        if (databaseSize ?? 0) == 0, walSize > 0 {
            // SQLite deletes a log found next to an empty database.
            let values: [String: any PhraseFilling] = ["bytes": "\(walSize)"]
            // swift-format-ignore
            throw LedgerError.damaged(
                path: path,
                detail: databaseSize == nil
                    ? Phrase("the database file is missing but its write-ahead log (-wal) holds {bytes} bytes", context: "service", values)
                    : Phrase("the database file is empty but its write-ahead log (-wal) holds {bytes} bytes", context: "service", values))
        }
        if walSize > 0, let damage = writeAheadLogDamage(at: walPath) {
            throw LedgerError.damaged(path: path, detail: damage)
        }
        guard databaseSize != nil else { return }

        do {
            let queue = try readOnlyConnection(path, hasLog: FileManager.default.fileExists(atPath: walPath))
            defer { try? queue.close() }
            try queue.read { db in
                let problems = try String.fetchAll(db, sql: "PRAGMA quick_check(5)")
                if problems != ["ok"] {
                    throw LedgerError.damaged(
                        path: path,
                        detail: Phrase(
                            "SQLite's check of its pages found: {problems}", context: "service",
                            ["problems": problems.joined(separator: "; ")]))
                }
                let migrator = LedgerMigrations.migrator
                let unknown = try migrator.appliedIdentifiers(db).subtracting(migrator.migrations)
                if !unknown.isEmpty {
                    let names = unknown.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
                    throw LedgerError.newerSchema(
                        path: path,
                        detail: Phrase(
                            "its schema has changes this program does not know ({names})", context: "service",
                            ["names": names]))
                }
                // This program never sets user_version: a value there comes from a newer one.
                let userVersion = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
                if userVersion != 0 {
                    throw LedgerError.newerSchema(
                        path: path,
                        detail: Phrase(
                            "its schema version is {version}; this program knows none", context: "service",
                            ["version": "\(userVersion)"]))
                }
            }
        } catch let error as DatabaseError {
            throw LedgerError(error, path: path)
        }
    }

    /// A connection that writes neither the database nor its log. A read-only SQLite
    /// connection still creates an empty `-wal` next to a WAL database that has none;
    /// with no log there is nothing but the database file to read, so it is opened
    /// `immutable` (no log, no index, no locks). SQLite builds that take no URIs
    /// refuse that name: then plain read-only it is.
    private static func readOnlyConnection(_ path: String, hasLog: Bool) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(5)
        if !hasLog, let escaped = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) {
            do {
                return try DatabaseQueue(path: "file:\(escaped)?immutable=1", configuration: configuration)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CANTOPEN {}
        }
        return try DatabaseQueue(path: path, configuration: configuration)
    }

    /// The damage in the log, seen the same in two reads: a log that changes between
    /// reads has a live writer (an agent) appending to it, and a frame caught
    /// half-written is not damage.
    private static func writeAheadLogDamage(at path: String) -> Phrase? {
        var previous: Data?
        for _ in 0..<5 {
            guard let contents = FileManager.default.contents(atPath: path), !contents.isEmpty else { return nil }
            guard let damage = WriteAheadLog([UInt8](contents)).damage else { return nil }
            if contents == previous { return damage }
            previous = contents
            Thread.sleep(forTimeInterval: 0.05)
        }
        return nil
    }

    private static func fileSize(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.size].flatMap { ($0 as? NSNumber)?.intValue }
    }
}

extension LedgerError {
    /// SQLite's word for a file that is not (or no longer) a sound database is damage;
    /// anything else (permissions, a full disk, a lock held too long) is not.
    init(_ error: DatabaseError, path: String) {
        switch error.resultCode {
        case .SQLITE_CORRUPT, .SQLITE_NOTADB:
            // SQLite's own words, as it gives them.
            self = .damaged(
                path: path,
                detail: Phrase(
                    "SQLite reports \"{message}\"", context: "service",
                    ["message": error.message ?? "\(error.resultCode)"]))
        default:
            self = .unreadable(path: path, reason: error.message ?? "\(error)")
        }
    }
}
