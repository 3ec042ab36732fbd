import Foundation
import GRDB
import UsageLedger

/// How an extension process ended, or a callback given up on.
public enum ExtensionRunOutcome: String, Sendable, Codable {
    /// It exited on its own with status 0 (idle, its work done).
    case exited
    /// It exited with another status, or was ended by a signal it did not ask for.
    case crashed
    /// The owner killed it: it did not answer in time, or broke the protocol or a limit.
    case killed
    /// It could not be started.
    case failedToStart = "failed-to-start"
    /// The owner stopped it (the owner itself stopped).
    case stopped
    /// A monitor callback whose extension failed twice: recorded here instead of delivered.
    case callbackFailed = "callback-failed"
}

/// One row of `screenward extensions`' recent runs.
public struct ExtensionRun: Sendable, Hashable, Codable {
    public var id: Int64
    public var client: String
    public var point: String
    public var pid: Int32?
    public var startedAt: Date
    public var endedAt: Date?
    /// Nil while it runs.
    public var outcome: ExtensionRunOutcome?
    public var detail: String
}

extension Ledger {
    public func beginExtensionRun(client: String, point: ExtensionPoint, pid: Int32?, at time: Date) throws -> Int64 {
        try database.write { db in
            try db.execute(
                sql: "INSERT INTO extensionRun (client, point, pid, startedAt) VALUES (?, ?, ?, ?)",
                arguments: [client, point.rawValue, pid, time.timeIntervalSince1970])
            return db.lastInsertedRowID
        }
    }

    public func setExtensionRunPID(_ id: Int64, pid: Int32) throws {
        try database.write { db in
            try db.execute(sql: "UPDATE extensionRun SET pid = ? WHERE id = ?", arguments: [pid, id])
        }
    }

    public func endExtensionRun(_ id: Int64, at time: Date, outcome: ExtensionRunOutcome, detail: String) throws {
        try database.write { db in
            try db.execute(
                sql: "UPDATE extensionRun SET endedAt = ?, outcome = ?, detail = ? WHERE id = ? AND endedAt IS NULL",
                arguments: [time.timeIntervalSince1970, outcome.rawValue, String(detail.prefix(2000)), id])
        }
    }

    /// Runs a previous owner left open ended with it.
    public func endOpenExtensionRuns(at time: Date) throws {
        try database.write { db in
            try db.execute(
                sql:
                    """
                    UPDATE extensionRun SET endedAt = ?, outcome = 'stopped', detail = 'the owner stopped' WHERE \
                    endedAt IS NULL
                    """,
                arguments: [time.timeIntervalSince1970])
        }
    }

    /// The newest runs first.
    public func recentExtensionRuns(limit: Int = 50) throws -> [ExtensionRun] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM extensionRun ORDER BY id DESC LIMIT ?", arguments: [limit]).map {
                row in
                ExtensionRun(
                    id: row["id"], client: row["client"], point: row["point"], pid: row["pid"],
                    startedAt: Date(timeIntervalSince1970: row["startedAt"]),
                    endedAt: (row["endedAt"] as Double?).map(Date.init(timeIntervalSince1970:)),
                    outcome: (row["outcome"] as String?).flatMap(ExtensionRunOutcome.init(rawValue:)),
                    detail: row["detail"])
            }
        }
    }

    /// The apps with callbacks their monitor has not acknowledged.
    public func clientsWithOutbox() throws -> Set<String> {
        try database.read { db in Set(try String.fetchAll(db, sql: "SELECT DISTINCT client FROM monitorOutbox")) }
    }

    /// The callbacks sent to a monitor extension that failed before acknowledging them:
    /// each counts one attempt; those that reach `limit` are taken out of the outbox and
    /// recorded as failed (never silently lost, never sent again). Returns their sequences.
    @discardableResult
    public func recordFailedDelivery(client: String, sequences: [Int64], limit: Int, at time: Date, why: String) throws
        -> [Int64]
    {
        try database.write { db in
            var givenUp: [Int64] = []
            for sequence in sequences {
                try db.execute(
                    sql: "UPDATE monitorOutbox SET attempts = attempts + 1 WHERE client = ? AND sequence = ?",
                    arguments: [client, sequence])
                guard
                    let row = try Row.fetchOne(
                        db, sql: "SELECT attempts, message FROM monitorOutbox WHERE client = ? AND sequence = ?",
                        arguments: [client, sequence]),
                    (row["attempts"] as Int) >= limit
                else { continue }
                let message: String = row["message"]
                try db.execute(
                    sql: "DELETE FROM monitorOutbox WHERE client = ? AND sequence = ?", arguments: [client, sequence])
                try db.execute(
                    sql:
                        """
                        INSERT INTO extensionRun (client, point, startedAt, endedAt, outcome, detail) VALUES (?, \
                        ?, ?, ?, 'callback-failed', ?)
                        """,
                    arguments: [
                        client, ExtensionPoint.deviceActivityMonitor.rawValue, time.timeIntervalSince1970,
                        time.timeIntervalSince1970,
                        String("callback \(sequence) failed \(limit) times (\(why)): \(message)".prefix(2000)),
                    ])
                givenUp.append(sequence)
            }
            return givenUp
        }
    }
}
