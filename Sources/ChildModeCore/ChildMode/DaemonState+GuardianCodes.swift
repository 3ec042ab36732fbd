import Foundation
import GRDB

/// A guardian's one-time code secret, as the daemon keeps it.
public struct GuardianCodeSecret: Sendable, Equatable {
    public var uid: UInt32
    public var name: String
    public var secret: [UInt8]
    public var enrolledAt: Date
    /// The last time step whose code approved something: that code, and every older
    /// one, is spent (a code works once).
    public var lastUsedStep: Int64?
}

/// Guardians' one-time code secrets: one per guardian account (by uid, so a renamed
/// account keeps its authenticator), in the daemon's database, which only root reads
/// (its state directory is root's, mode 0700).
extension DaemonState {
    static func registerGuardianCodeMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v2: guardians' one-time code secrets") { db in
            try db.execute(
                sql: """
                    CREATE TABLE guardianCodeSecret (
                      uid INTEGER PRIMARY KEY NOT NULL,
                      name TEXT NOT NULL,
                      secret BLOB NOT NULL,
                      enrolledAt DOUBLE NOT NULL,
                      lastUsedStep INTEGER
                    );
                    """)
        }
    }

    /// Stores `secret` for the guardian `uid`, replacing any earlier one (whose codes stop
    /// working at once). Returns whether one was replaced.
    @discardableResult
    public func enrollGuardianCode(uid: UInt32, name: String, secret: [UInt8], at time: Date) throws -> Bool {
        try database.write { db in
            let replaced =
                try Row.fetchOne(db, sql: "SELECT 1 FROM guardianCodeSecret WHERE uid = ?", arguments: [uid]) != nil
            try db.execute(
                sql:
                    """
                    INSERT OR REPLACE INTO guardianCodeSecret (uid, name, secret, enrolledAt, lastUsedStep) \
                    VALUES (?, ?, ?, ?, NULL)
                    """,
                arguments: [uid, name, Data(secret), time.timeIntervalSince1970])
            return replaced
        }
    }

    /// Forgets the guardian's secret; returns whether there was one.
    @discardableResult
    public func removeGuardianCode(uid: UInt32) throws -> Bool {
        try database.write { db in
            try db.execute(sql: "DELETE FROM guardianCodeSecret WHERE uid = ?", arguments: [uid])
            return db.changesCount > 0
        }
    }

    public func guardianCode(uid: UInt32) throws -> GuardianCodeSecret? {
        try database.read { db in
            try Row.fetchOne(
                db, sql: "SELECT uid, name, secret, enrolledAt, lastUsedStep FROM guardianCodeSecret WHERE uid = ?",
                arguments: [uid]
            )
            .map { row in
                GuardianCodeSecret(
                    uid: row["uid"], name: row["name"], secret: [UInt8](row["secret"] as Data),
                    enrolledAt: Date(timeIntervalSince1970: row["enrolledAt"]),
                    lastUsedStep: row["lastUsedStep"])
            }
        }
    }

    /// Marks time step `step` spent for guardian `uid`, unless it (or a later one) already
    /// is: one transaction, so a code can never be accepted twice. Returns whether it was
    /// still unused.
    public func spendGuardianCodeStep(uid: UInt32, step: Int64) throws -> Bool {
        try database.write { db in
            try db.execute(
                sql:
                    """
                    UPDATE guardianCodeSecret SET lastUsedStep = ? \
                    WHERE uid = ? AND (lastUsedStep IS NULL OR lastUsedStep < ?)
                    """,
                arguments: [step, uid, step])
            return db.changesCount > 0
        }
    }
}
