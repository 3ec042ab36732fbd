import Foundation
import GRDB
@_spi(Screenward) import ManagedSettings

/// The usage ledger: one SQLite database (WAL mode) in the Screenward home.
///
/// The agent is its only writer; `screenward` reads it at any time, whether or not
/// the agent runs. Each transaction below is named after what it means, and the
/// schema only ever changes through new migrations (see `LedgerMigrations`).
public final class Ledger: Sendable {
    let database: DatabaseQueue

    /// Opens (creating if needed) the ledger at `url` and brings its schema up to date.
    public init(url: URL) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            // WAL lets the CLI read while the agent writes; NORMAL sync keeps every
            // committed checkpoint across a crash of the agent (not of the kernel).
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        do {
            database = try DatabaseQueue(path: url.path, configuration: configuration)
            try LedgerMigrations.migrator.migrate(database)
        } catch let error as DatabaseError {
            throw LedgerError.unreadable(path: url.path, reason: error.message ?? "\(error)")
        }
    }

    /// A private in-memory ledger (for tests and dry runs).
    public init() throws {
        database = try DatabaseQueue()
        try LedgerMigrations.migrator.migrate(database)
    }
}

public enum LedgerError: Error, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case unknownInterval(Int64)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason):
            "cannot use the usage ledger \(path): \(reason). If the file is damaged, move it aside; Screenward starts a new one."
        case .unknownInterval(let id):
            "usage interval \(id) is not in the ledger"
        }
    }
}

/// Why an interval of usage ended.
public enum IntervalEndReason: String, Sendable, Codable, CaseIterable {
    case focusChange = "focus-change"
    case idle
    case locked
    case suspend
    case clockJump = "clock-jump"
    case agentStopped = "agent-stopped"
    case connectionLost = "connection-lost"
    /// Closed on the next start after the agent died without closing it.
    case recovered
}

// MARK: - The agent's transactions

extension Ledger {
    /// Records the start of an agent run and closes what a previous run left open
    /// (it crashed or was killed): those intervals end at their last checkpoint.
    public func beginAgentSession(pid: Int32, display: String, at start: Date) throws -> (sessionID: Int64, recoveredIntervals: Int) {
        try database.write { db in
            try db.execute(
                sql: "UPDATE usageInterval SET isOpen = 0, endReason = ? WHERE isOpen",
                arguments: [IntervalEndReason.recovered.rawValue])
            let recovered = db.changesCount
            try db.execute(
                sql: "UPDATE agentSession SET endReason = 'vanished' WHERE endedAt IS NULL")
            try db.execute(
                sql: "INSERT INTO agentSession (pid, display, startedAt) VALUES (?, ?, ?)",
                arguments: [pid, display, start.timeIntervalSince1970])
            let sessionID = db.lastInsertedRowID
            try db.execute(sql: "DELETE FROM agentStatus")
            return (sessionID, recovered)
        }
    }

    public func endAgentSession(_ sessionID: Int64, at end: Date, reason: String) throws {
        try database.write { db in
            try db.execute(
                sql: "UPDATE agentSession SET endedAt = ?, endReason = ? WHERE id = ?",
                arguments: [end.timeIntervalSince1970, reason, sessionID])
            try db.execute(sql: "DELETE FROM agentStatus")
        }
    }

    /// Starts an interval of use of `app`, remembering the app's public id and name
    /// under its token so reports can name it.
    /// With `id`, the row takes that id (a writer that hands out ids itself, see
    /// `BackgroundLedgerSink`); without, SQLite picks one.
    @discardableResult
    public func openInterval(
        id: Int64? = nil, sessionID: Int64, app: AppIdentity, token: ApplicationToken, startingAt start: Date
    ) throws -> Int64 {
        try database.write { db in
            let now = start.timeIntervalSince1970
            try db.execute(
                sql: """
                    INSERT INTO application (token, publicID, displayName, iconName, categories, firstSeen, lastSeen)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(token) DO UPDATE SET
                      publicID = excluded.publicID, displayName = excluded.displayName,
                      iconName = excluded.iconName, categories = excluded.categories, lastSeen = excluded.lastSeen
                    """,
                arguments: [
                    token.opaqueValue, app.publicID, app.displayName, app.iconName,
                    app.categories.joined(separator: ";"), now, now,
                ])
            try db.execute(
                sql: """
                    INSERT INTO usageInterval (id, token, sessionID, startedAt, endedAt, duration, isOpen)
                    VALUES (?, ?, ?, ?, ?, 0, 1)
                    """,
                arguments: [id, token.opaqueValue, sessionID, now, now])
            return db.lastInsertedRowID
        }
    }

    /// The id after every interval ever recorded (ids are never reused).
    public func nextIntervalID() throws -> Int64 {
        try database.read { db in
            let used = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'usageInterval'") ?? 0
            let present = try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM usageInterval") ?? 0
            return max(used, present) + 1
        }
    }

    /// Saves how long the open interval has lasted so far, so a crash loses at most
    /// the time since this call.
    public func checkpointInterval(_ id: Int64, duration: Duration) throws {
        try database.write { db in
            try db.execute(
                sql: "UPDATE usageInterval SET duration = ?, endedAt = startedAt + ? WHERE id = ? AND isOpen",
                arguments: [duration.seconds, duration.seconds, id])
        }
    }

    /// Ends an interval; one that lasted no time at all leaves no row.
    public func closeInterval(_ id: Int64, duration: Duration, reason: IntervalEndReason) throws {
        try database.write { db in
            if duration <= .zero {
                try db.execute(sql: "DELETE FROM usageInterval WHERE id = ?", arguments: [id])
            } else {
                try db.execute(
                    sql: """
                        UPDATE usageInterval SET duration = ?, endedAt = startedAt + ?, isOpen = 0, endReason = ?
                        WHERE id = ?
                        """,
                    arguments: [duration.seconds, duration.seconds, reason.rawValue, id])
            }
        }
    }

    /// Replaces what `screenward status` shows about the running agent.
    public func recordStatus(_ status: AgentStatus) throws {
        try database.write { db in
            try db.execute(sql: "DELETE FROM agentStatus")
            try db.execute(
                sql: """
                    INSERT INTO agentStatus (id, sessionID, pid, display, focusedID, focusedName, isIdle, isLocked, idleThreshold, updatedAt)
                    VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    status.sessionID, status.pid, status.display, status.focusedID, status.focusedName,
                    status.isIdle, status.isLocked, status.idleThreshold, status.updatedAt.timeIntervalSince1970,
                ])
        }
    }
}
