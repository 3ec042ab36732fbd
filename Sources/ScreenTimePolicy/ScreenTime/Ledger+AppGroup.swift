import Foundation
import GRDB
import UsageLedger

extension Ledger {
    public func appGroupValue(client: String, key: String) throws -> Data? {
        try database.read { db in
            try Data.fetchOne(
                db, sql: "SELECT value FROM appGroupValue WHERE client = ? AND key = ?", arguments: [client, key])
        }
    }

    /// Stores or (nil) removes one value; a new key beyond `maximumKeys` is refused
    /// (checked in the same transaction).
    public func setAppGroupValue(client: String, key: String, value: Data?, maximumKeys: Int, at time: Date) throws {
        try database.write { db in
            guard let value else {
                try db.execute(sql: "DELETE FROM appGroupValue WHERE client = ? AND key = ?", arguments: [client, key])
                return
            }
            let exists =
                try Bool.fetchOne(
                    db, sql: "SELECT 1 FROM appGroupValue WHERE client = ? AND key = ?", arguments: [client, key])
                ?? false
            let count =
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM appGroupValue WHERE client = ?", arguments: [client])
                ?? 0
            guard exists || count < maximumKeys else { throw AppGroupFull(client: client, maximumKeys: maximumKeys) }
            try db.execute(
                sql: "INSERT OR REPLACE INTO appGroupValue (client, key, value, updatedAt) VALUES (?, ?, ?, ?)",
                arguments: [client, key, value, time.timeIntervalSince1970])
        }
    }
}

package struct AppGroupFull: Error {
    var client: String
    var maximumKeys: Int
}
