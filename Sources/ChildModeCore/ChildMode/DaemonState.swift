import Foundation
import GRDB
import ScreenwardBasics
import ScreenwardIPC

/// The system daemon's own database, `daemon.sqlite` in its state directory: who is
/// managed, and what happened to each managed user's limits. Each managed user's
/// usage and settings live in a ledger of their own (`ChildHomes`), as an agent's do.
///
/// Transactions are named after what they mean; the schema changes only by new
/// migrations appended to `migrator`, never by editing one that shipped.
public final class DaemonState: Sendable {
    let database: DatabaseQueue

    public init(url: URL) throws {
        do {
            database = try DatabaseQueue(path: url.path, configuration: .screenwardFile)
            try Self.migrator.migrate(database)
        } catch let error as DatabaseError {
            throw DaemonStateError.unusable(path: url.path, reason: "\(error)")
        }
    }

    /// A private in-memory database (tests).
    public init() throws {
        database = try DatabaseQueue()
        try Self.migrator.migrate(database)
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: managed users and their events") { db in
            try db.execute(
                sql: """
                    CREATE TABLE managedUser (
                      uid INTEGER PRIMARY KEY NOT NULL,
                      name TEXT NOT NULL,
                      since DOUBLE NOT NULL,
                      addedBy TEXT NOT NULL
                    );
                    CREATE TABLE childEvent (
                      id INTEGER PRIMARY KEY AUTOINCREMENT,
                      uid INTEGER NOT NULL,
                      at DOUBLE NOT NULL,
                      kind TEXT NOT NULL,
                      actor TEXT NOT NULL,
                      detail TEXT NOT NULL
                    );
                    CREATE INDEX childEventByUser ON childEvent(uid, at);
                    """)
        }
        registerGuardianCodeMigration(&migrator)
        registerSessionLanguageMigration(&migrator)
        registerEventPhraseMigration(&migrator)
        registerConsoleLoginsMigration(&migrator)
        return migrator
    }

    // MARK: Managed users

    /// Makes `account` a managed user, and records who did it. Throws if it already is.
    public func manage(_ account: Account, by guardian: String, at time: Date) throws -> ManagedUser {
        try database.write { db in
            if try Row.fetchOne(db, sql: "SELECT 1 FROM managedUser WHERE uid = ?", arguments: [account.uid]) != nil {
                throw DaemonStateError.alreadyManaged(account.name)
            }
            try db.execute(
                sql: "INSERT INTO managedUser (uid, name, since, addedBy) VALUES (?, ?, ?, ?)",
                arguments: [account.uid, account.name, time.timeIntervalSince1970, guardian])
            try Self.insert(
                ChildEvent(
                    at: time, kind: .managed, actor: guardian,
                    phrase: Phrase(
                        "{guardian} made {user} a managed user", context: "event",
                        ["guardian": guardian, "user": account.name])),
                uid: account.uid, db)
            return ManagedUser(name: account.name, uid: account.uid, since: time, addedBy: guardian)
        }
    }

    /// Stops managing `uid`; its events are kept (a guardian may read them later).
    public func unmanage(uid: UInt32, name: String, by guardian: String, at time: Date) throws {
        try database.write { db in
            try db.execute(sql: "DELETE FROM managedUser WHERE uid = ?", arguments: [uid])
            guard db.changesCount > 0 else { throw DaemonStateError.notManaged(name) }
            try Self.insert(
                ChildEvent(
                    at: time, kind: .unmanaged, actor: guardian,
                    phrase: Phrase(
                        "{guardian} stopped managing {user}", context: "event", ["guardian": guardian, "user": name])),
                uid: uid, db)
        }
    }

    public func managedUsers() throws -> [ManagedUser] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT uid, name, since, addedBy FROM managedUser ORDER BY name").map(
                Self.managedUser)
        }
    }

    public func managedUser(uid: UInt32) throws -> ManagedUser? {
        try database.read { db in
            try Row.fetchOne(
                db, sql: "SELECT uid, name, since, addedBy FROM managedUser WHERE uid = ?", arguments: [uid]
            ).map(Self.managedUser)
        }
    }

    // MARK: Events

    public func record(_ event: ChildEvent, uid: UInt32) throws {
        try database.write { db in try Self.insert(event, uid: uid, db) }
    }

    /// A managed user's events, oldest first.
    public func events(uid: UInt32) throws -> [ChildEvent] {
        try database.read { db in
            try Row.fetchAll(
                db, sql: "SELECT at, kind, actor, detail, phrase FROM childEvent WHERE uid = ? ORDER BY at, id",
                arguments: [uid]
            ).map(Self.event)
        }
    }

    /// A managed user's events recorded after the one `id` names and no earlier than `since`,
    /// oldest first, with their ids (at most `limit`): what the household's other computers
    /// are sent.
    public func events(uid: UInt32, after id: Int64, since: Date, limit: Int) throws -> [(id: Int64, event: ChildEvent)]
    {
        try database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT id, at, kind, actor, detail FROM childEvent
                    WHERE uid = ? AND id > ? AND at >= ? ORDER BY id LIMIT ?
                    """,
                arguments: [uid, id, since.timeIntervalSince1970, limit]
            ).map { row in
                (
                    row["id"],
                    ChildEvent(
                        at: Date(timeIntervalSince1970: row["at"]), kind: ChildEvent.Kind(rawValue: row["kind"]),
                        actor: row["actor"], detail: row["detail"])
                )
            }
        }
    }

    static func insert(_ event: ChildEvent, uid: UInt32, _ db: Database) throws {
        try db.execute(
            sql: "INSERT INTO childEvent (uid, at, kind, actor, detail, phrase) VALUES (?, ?, ?, ?, ?, ?)",
            arguments: [
                uid, event.at.timeIntervalSince1970, event.kind.rawValue, event.actor, event.detail,
                phraseColumn(event.phrase),
            ])
    }

    private static func managedUser(_ row: Row) -> ManagedUser {
        ManagedUser(
            name: row["name"], uid: row["uid"], since: Date(timeIntervalSince1970: row["since"]),
            addedBy: row["addedBy"])
    }
}

/// The daemon's database refused: said as a phrase, which the command line translates.
public enum DaemonStateError: PhrasedError, Equatable {
    case unusable(path: String, reason: String)
    case alreadyManaged(String)
    case notManaged(String)
    case notALanguage(String)

    public var phrase: Phrase {
        switch self {
        case .unusable(let path, let reason):
            Phrase(
                "cannot use the daemon's database {path}: {error}", context: "daemon", ["path": path, "error": reason])
        case .alreadyManaged(let name): Phrase("{name} is already a managed user", context: "daemon", ["name": name])
        case .notManaged(let name): Phrase("{name} is not a managed user", context: "daemon", ["name": name])
        case .notALanguage(let text):
            Phrase(
                "\"{text}\" is not a language (two or three letters)", context: "daemon",
                ["text": String(text.prefix(40))])
        }
    }
}
