import DeviceActivity
import Foundation
import GRDB

/// The monitor engine's transactions on the ledger (schema: migration v2).
extension Ledger {
    /// Every registration with its open intervals and what fired for them: all the
    /// engine needs to resume.
    func monitorRuns() throws -> [ActivityRun] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM monitorRegistration ORDER BY id").map { row in
                let id: Int64 = row["id"]
                let activity = try MonitorCoding.activity(from: row)
                let frontier = try Double.fetchOne(
                    db, sql: #"SELECT MAX("end") FROM monitorInterval WHERE registrationID = ?"#, arguments: [id])
                let open = try Row.fetchAll(
                    db,
                    sql:
                        """
                        SELECT start, "end" FROM monitorInterval \
                        WHERE registrationID = ? AND NOT isFinished ORDER BY start
                        """,
                    arguments: [id]
                ).map { interval in
                    let start: Double = interval["start"]
                    let fired = try Row.fetchAll(
                        db, sql: "SELECT kind, event FROM monitorFiring WHERE registrationID = ? AND intervalStart = ?",
                        arguments: [id, start]
                    ).map { firing in
                        let kind: String = firing["kind"]
                        guard let known = MonitorCallback.Kind(rawValue: kind) else {
                            throw MonitorStoreError.unknownCallbackKind(kind)
                        }
                        return FiringKey(kind: known, event: firing["event"])
                    }
                    return OpenInterval(
                        interval: DateInterval(
                            start: Date(timeIntervalSince1970: start), end: Date(timeIntervalSince1970: interval["end"])
                        ),
                        fired: Set(fired))
                }
                return ActivityRun(
                    registrationID: id, activity: activity, open: open,
                    frontier: frontier.map(Date.init(timeIntervalSince1970:)))
            }
        }
    }

    /// Registers an activity, replacing the owner's registration of the same name
    /// and everything it had run. Returns the new registration's id.
    func replaceMonitorRegistration(_ activity: MonitoredActivity, alongside: (Database) throws -> Void = { _ in })
        throws -> Int64
    {
        let schedule = try MonitorCoding.encode(activity.schedule)
        let events = try MonitorCoding.encode(activity.sortedEvents.map { NamedEvent(name: $0.name, event: $0.event) })
        return try database.write { db in
            try db.execute(
                sql: "DELETE FROM monitorRegistration WHERE owner = ? AND activity = ?",
                arguments: [activity.owner, activity.name.rawValue])
            try db.execute(
                sql:
                    """
                    INSERT INTO monitorRegistration (owner, activity, schedule, events, registeredAt) \
                    VALUES (?, ?, ?, ?, ?)
                    """,
                arguments: [
                    activity.owner, activity.name.rawValue, schedule, events,
                    activity.registeredAt.timeIntervalSince1970,
                ])
            let id = db.lastInsertedRowID
            try alongside(db)
            return id
        }
    }

    /// Forgets registrations, with their intervals and firings.
    func removeMonitorRegistrations(_ ids: [Int64], alongside: (Database) throws -> Void = { _ in }) throws {
        try database.write { db in
            for id in ids {
                try db.execute(sql: "DELETE FROM monitorRegistration WHERE id = ?", arguments: [id])
            }
            try alongside(db)
        }
    }

    /// Records, all or nothing, the intervals taken up, the callbacks fired and the
    /// intervals that ended, with `alongside` in the same transaction (the callbacks
    /// queued for their monitors). The primary key refuses a callback recorded twice.
    func recordMonitorProgress(_ progress: MonitorProgress, alongside: (Database) throws -> Void = { _ in }) throws {
        try database.write { db in
            for (id, interval) in progress.opened {
                try db.cachedStatement(
                    sql: #"INSERT INTO monitorInterval (registrationID, start, "end") VALUES (?, ?, ?)"#
                ).execute(arguments: [id, interval.start.timeIntervalSince1970, interval.end.timeIntervalSince1970])
            }
            for (id, callback) in progress.fired {
                try db.cachedStatement(
                    sql: """
                        INSERT INTO monitorFiring (registrationID, intervalStart, kind, event, scheduledAt, firedAt)
                        VALUES (?, ?, ?, ?, ?, ?)
                        """
                ).execute(arguments: [
                    id, callback.interval.start.timeIntervalSince1970, callback.kind.rawValue,
                    callback.event?.rawValue ?? "", callback.scheduledAt.timeIntervalSince1970,
                    callback.deliveredAt.timeIntervalSince1970,
                ])
            }
            for (id, start) in progress.finished {
                try db.cachedStatement(
                    sql: "UPDATE monitorInterval SET isFinished = 1 WHERE registrationID = ? AND start = ?"
                ).execute(arguments: [id, start.timeIntervalSince1970])
            }
            try alongside(db)
        }
    }
}

public enum MonitorStoreError: Error, CustomStringConvertible {
    case unreadableRegistration(owner: String, activity: String, reason: String)
    case unknownCallbackKind(String)

    public var description: String {
        switch self {
        case .unreadableRegistration(let owner, let activity, let reason):
            "the monitored activity \(activity) of \(owner) cannot be read back from the ledger: \(reason)"
        case .unknownCallbackKind(let kind):
            "the ledger records a monitor callback of unknown kind \(kind)"
        }
    }
}

/// An event under its name, as stored (a dictionary keyed by a non-String type
/// would encode as a flat array of keys and values).
private struct NamedEvent: Codable {
    var name: DeviceActivityEvent.Name
    var event: DeviceActivityEvent
}

private enum MonitorCoding {
    static func encode(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static func activity(from row: Row) throws -> MonitoredActivity {
        let owner: String = row["owner"]
        let name: String = row["activity"]
        do {
            let decoder = JSONDecoder()
            let schedule = try decoder.decode(DeviceActivitySchedule.self, from: Data((row["schedule"] as String).utf8))
            let events = try decoder.decode([NamedEvent].self, from: Data((row["events"] as String).utf8))
            return MonitoredActivity(
                owner: owner, name: DeviceActivityName(name), schedule: schedule,
                events: Dictionary(events.map { ($0.name, $0.event) }, uniquingKeysWith: { first, _ in first }),
                registeredAt: Date(timeIntervalSince1970: row["registeredAt"]))
        } catch {
            throw MonitorStoreError.unreadableRegistration(owner: owner, activity: name, reason: "\(error)")
        }
    }
}
