import Foundation
import GRDB
import ScreenwardIPC

/// Whether a guardian allowed a managed user's console logins (`screenward child console`):
/// off unless they did, so a console login is ended at once; on, it is counted as the app
/// Console and ended when that app is shielded. Kept with the managed user, on this computer.
extension DaemonState {
    static func registerConsoleLoginsMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v5: console logins a guardian allows") { db in
            try db.execute(sql: "ALTER TABLE managedUser ADD COLUMN consoleAllowed BOOLEAN NOT NULL DEFAULT 0")
        }
    }

    /// Whether `uid`'s console logins are allowed (false for a user not managed, and when the
    /// database cannot be read: a console stays closed).
    public func consoleAllowed(uid: UInt32) -> Bool {
        let allowed = try? database.read { db in
            try Bool.fetchOne(db, sql: "SELECT consoleAllowed FROM managedUser WHERE uid = ?", arguments: [uid])
        }
        return (allowed ?? nil) ?? false
    }

    /// A guardian allows or stops allowing `uid`'s console logins; says whether that is news
    /// (recorded in their events when it is).
    public func setConsoleAllowed(_ allowed: Bool, uid: UInt32, name: String, by guardian: String, at time: Date)
        throws -> Bool
    {
        try database.write { db in
            guard try Row.fetchOne(db, sql: "SELECT 1 FROM managedUser WHERE uid = ?", arguments: [uid]) != nil else {
                throw DaemonStateError.notManaged(name)
            }
            try db.execute(
                sql: "UPDATE managedUser SET consoleAllowed = ? WHERE uid = ? AND consoleAllowed != ?",
                arguments: [allowed, uid, allowed])
            guard db.changesCount > 0 else { return false }
            let values = ["guardian": guardian, "user": name]
            // swift-format-ignore
            let allowing = Phrase("{guardian} allowed {user}'s console logins: each counts as the app Console, under {user}'s limits and downtime", context: "event", values)
            // swift-format-ignore
            let closing = Phrase("{guardian} stopped allowing {user}'s console logins: each is ended at once", context: "event", values)
            try Self.insert(
                ChildEvent(at: time, kind: .rulesChanged, actor: guardian, phrase: allowed ? allowing : closing),
                uid: uid, db)
            return true
        }
    }
}
