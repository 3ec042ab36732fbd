import Foundation
import GRDB
@_spi(Screenward) import ManagedSettings
import ScreenwardBasics
import ScreenwardIPC

/// The usage ledger: one SQLite database (WAL mode) in the Screenward home.
///
/// The agent is its only writer; `screenward` reads it at any time, whether or not
/// the agent runs. Each transaction below is named after what it means, and the
/// schema only ever changes through new migrations (see `LedgerMigrations`).
public final class Ledger: Sendable {
    /// The ledger's extensions in the modules above (rules, reports, stores, extensions)
    /// run their own transactions on it.
    package let database: DatabaseQueue

    /// Opens (creating if needed) the ledger at `url` and brings its schema up to date.
    /// A damaged ledger, or one a newer Screenward wrote, is refused untouched (see
    /// `verify(at:)`).
    public init(url: URL) throws {
        try Self.verify(at: url)
        do {
            database = try DatabaseQueue(path: url.path, configuration: .screenwardFile)
            try LedgerMigrations.migrator.migrate(database)
        } catch let error as DatabaseError {
            throw LedgerError(error, path: url.path)
        }
    }

    /// A private in-memory ledger (for tests and dry runs).
    public init() throws {
        database = try DatabaseQueue()
        try LedgerMigrations.migrator.migrate(database)
    }
}

/// Why the ledger cannot be used, as a phrase: the command line that opens it (or hears of
/// it from the agent) tells it in the reader's language.
public enum LedgerError: PhrasedError {
    case unreadable(path: String, reason: String)
    /// Pages SQLite finds broken, or a write-ahead log whose replay would lose committed data.
    case damaged(path: String, detail: Phrase)
    /// Written by a newer Screenward: its schema has migrations this program does not know.
    case newerSchema(path: String, detail: Phrase)
    case unknownInterval(Int64)

    public var phrase: Phrase {
        // swift-format-ignore
        switch self {
        case .unreadable(let path, let reason):
            return Phrase("cannot use the usage ledger {path}: {reason}", context: "service", ["path": path, "reason": reason])
        case .damaged(let path, let detail):
            let howToSetAside = Self.setAside(path, copy: Phrase("(`sqlite3 ledger.sqlite .recover` there salvages what can still be read)", context: "service"))
            return Phrase("the usage ledger {path} is damaged: {detail}.\nScreenward left it as it is: nothing was written to it or to its write-ahead log, and nothing was deleted.\nTo keep the damaged ledger and start a new one, {setaside}", context: "service", ["path": path, "detail": detail, "setaside": howToSetAside])
        case .newerSchema(let path, let detail):
            let howToSetAside = Self.setAside(path, copy: Phrase("(move it back to use the newer version)", context: "service"))
            return Phrase("the usage ledger {path} was written by a newer version of Screenward: {detail}.\nThis version cannot use it and left it as it is: nothing was written to it, and nothing was deleted.\nRun the newer screenward-agent and screenward again, or, to go on with this version, {setaside}", context: "service", ["path": path, "detail": detail, "setaside": howToSetAside])
        case .unknownInterval(let id):
            return Phrase("usage interval {id} is not in the ledger", context: "service", ["id": "\(id)"])
        }
    }

    /// How to move the ledger's files (those that exist) aside and start afresh: one text
    /// for each number of files that go with the database (a log, an index).
    private static func setAside(_ path: String, copy note: Phrase) -> Phrase {
        let url = URL(fileURLWithPath: path)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        let aside = url.deletingLastPathComponent().appendingPathComponent(
            "ledger-set-aside-\(formatter.string(from: Date()))"
        ).path
        let files = [path] + [path + "-wal", path + "-shm"].filter { FileManager.default.fileExists(atPath: $0) }
        func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'" }
        let companions = files.dropFirst().map { URL(fileURLWithPath: $0).lastPathComponent }
        var values: [String: any PhraseFilling] = [
            "folder": quoted(aside), "files": files.map(quoted).joined(separator: " "), "target": quoted(aside + "/"),
            "aside": aside, "note": note,
        ]
        // swift-format-ignore
        switch companions.count {
        case 0:
            return Phrase("stop screenward-agent if it runs and move it aside:\n  mkdir {folder} && mv {files} {target}\nThe next screenward-agent starts an empty ledger (usage, settings stores and monitored activities start afresh); the copy stays in {aside} {note}.", context: "service", values)
        case 1:
            values["companion"] = companions[0]
            return Phrase("stop screenward-agent if it runs and move it aside with {companion}:\n  mkdir {folder} && mv {files} {target}\nThe next screenward-agent starts an empty ledger (usage, settings stores and monitored activities start afresh); the copy stays in {aside} {note}.", context: "service", values)
        default:
            values["first"] = companions[0]
            values["second"] = companions[1]
            return Phrase("stop screenward-agent if it runs and move it aside with {first} and {second}:\n  mkdir {folder} && mv {files} {target}\nThe next screenward-agent starts an empty ledger (usage, settings stores and monitored activities start afresh); the copy stays in {aside} {note}.", context: "service", values)
        }
    }
}

/// Why an interval of usage ended.
public enum IntervalEndReason: String, Sendable, Codable, CaseIterable {
    case focusChange = "focus-change"
    /// The same browser window went to another website, or another tab.
    case siteChange = "site-change"
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
    public func beginAgentSession(pid: Int32, display: String, at start: Date) throws -> (
        sessionID: Int64, recoveredIntervals: Int
    ) {
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
        id: Int64? = nil, sessionID: Int64, app: AppIdentity, token: ApplicationToken, site: Website? = nil,
        startingAt start: Date
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
                    INSERT INTO usageInterval (id, token, sessionID, startedAt, endedAt, duration, isOpen, webDomain, \
                    webHost)
                    VALUES (?, ?, ?, ?, ?, 0, 1, ?, ?)
                    """,
                arguments: [id, token.opaqueValue, sessionID, now, now, site?.domain, site?.host])
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
                    INSERT INTO agentStatus (id, sessionID, pid, display, focusedID, focusedName, isIdle, isLocked, \
                    idleThreshold, updatedAt)
                    VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    status.sessionID, status.pid, status.display, status.focusedID, status.focusedName,
                    status.isIdle, status.isLocked, status.idleThreshold, status.updatedAt.timeIntervalSince1970,
                ])
        }
    }
}
