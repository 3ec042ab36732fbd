import Foundation
import PostgresNIO
import ScreenwardCore
import ScreenwardIPC

/// One child's usage both ways between this computer's ledger and the household's database
/// (docs/household.md).
///
/// Up: every interval not yet known uploaded closed is sent, keyed by this computer, its
/// ledger and the interval's id; sending one again only sets its length (a closed one not
/// even that), so a batch sent twice (a crash between the commit and the ledger's note of
/// it) counts once. Each upload takes the next revision of this computer's row, which it
/// holds locked until its commit, and marks the rows it changed with it.
///
/// Down: the other computers' rows with revisions past what was read of each (per
/// computer: their revisions commit in order), kept in the ledger with how far.
enum UsageExchange {
    static let channel = "screenward_household"

    /// Sends `intervals` of `child`'s from `ledgerID`; they are in the database once this returns.
    static func upload(
        _ intervals: [HouseholdUpload], child: String, ledgerID: String, on connection: PostgresConnection,
        clock: @escaping @Sendable () -> Date = Date.init
    ) async throws {
        let logger = HouseholdDatabase.logger
        try await connection.withTransaction(logger: logger) { connection in
            try await UsageExchange.name(child: child, on: connection)
            var revision: Int64?
            var databaseNow = 0.0
            let question = ClockQuestion(clock: clock)
            for try await (value, now) in try await connection.query(
                """
                UPDATE computer SET revision = revision + 1, last_seen = now()
                WHERE role = current_user AND left_at IS NULL
                RETURNING revision, extract(epoch from clock_timestamp())::double precision
                """, logger: logger
            ).decode((Int64, Double).self) {
                revision = value
                databaseNow = now
            }
            guard let revision else { throw noLongerMember }
            let skew = question.skew(databaseNow: databaseNow)
            let ids = intervals.map(\.id)
            let applications = intervals.map(\.publicID)
            let names = intervals.map(\.displayName)
            let categories = intervals.map(\.categories)
            let starts = intervals.map(\.startedAt)
            let durations = intervals.map { max(0, $0.duration) }
            let open = intervals.map(\.isOpen)
            let domains = intervals.map { $0.webDomain ?? "" }
            try await connection.query(
                """
                INSERT INTO usage_interval
                  (ledger, local_id, child, application, application_name, categories, started_at, clock_skew,
                   duration, is_open, web_domain, revision)
                SELECT \(ledgerID)::uuid, id, \(child), application, name, categories, started_at, \(skew),
                       duration, is_open, NULLIF(web_domain, ''), \(revision)
                FROM unnest(\(ids)::bigint[], \(applications)::text[], \(names)::text[], \(categories)::text[],
                            \(starts)::double precision[], \(durations)::double precision[], \(open)::boolean[],
                            \(domains)::text[])
                  AS t (id, application, name, categories, started_at, duration, is_open, web_domain)
                ON CONFLICT (computer, ledger, local_id) DO UPDATE SET
                  duration = excluded.duration, is_open = excluded.is_open, clock_skew = excluded.clock_skew,
                  revision = excluded.revision
                WHERE usage_interval.is_open
                """, logger: logger)
            try await notify(child: child, on: connection)
        }
    }

    /// Names `child` in the household (every record of a child's refers to it), in the
    /// caller's transaction; a child named already stays as they are.
    static func name(child: String, on connection: PostgresConnection) async throws {
        try await connection.query(
            "INSERT INTO child (name) VALUES (\(child)) ON CONFLICT DO NOTHING", logger: HouseholdDatabase.logger)
    }

    /// The other computers' doorbell: `ROLE CHILD`, who wrote and whose (a computer ignores
    /// its own notices, and those of children it does not have). Sent at commit.
    static func notify(child: String, on connection: PostgresConnection) async throws {
        try await connection.query(
            "SELECT pg_notify(\(channel), current_user || ' ' || \(child))", logger: HouseholdDatabase.logger)
    }

    static let noLongerMember = HouseholdError(
        Phrase("this computer is no longer in the household (it left, or was removed)", context: "household"))

    /// Notes that this computer is here, when it had nothing to send.
    static func markSeen(on connection: PostgresConnection) async throws {
        let rows = try await connection.query(
            "UPDATE computer SET last_seen = now() WHERE role = current_user AND left_at IS NULL RETURNING 1",
            logger: HouseholdDatabase.logger)
        var found = false
        for try await _ in rows.decode(Int.self) { found = true }
        guard found else { throw noLongerMember }
    }

    /// The other computers' rows of `child`'s changed since `cursors`, their starts moved onto
    /// this computer's clock, and the cursors past them; rows that ended before `since` are
    /// left out (the cursors still move past them).
    static func download(
        child: String, after cursors: [String: Int64], since: Date, on connection: PostgresConnection,
        clock: @escaping @Sendable () -> Date = Date.init
    ) async throws -> (intervals: [ElsewhereInterval], cursors: [String: Int64]) {
        let logger = HouseholdDatabase.logger
        let cursorText = String(decoding: try JSONEncoder().encode(cursors), as: UTF8.self)
        let question = ClockQuestion(clock: clock)
        let rows = try await connection.query(
            """
            SELECT u.computer::text, c.name, u.ledger::text, u.local_id, u.application, u.application_name,
                   u.categories, u.started_at + u.clock_skew, u.duration, u.is_open, u.web_domain, u.revision,
                   extract(epoch from clock_timestamp())::double precision
            FROM usage_interval u JOIN computer c ON c.role = u.computer
            WHERE u.child = \(child) AND u.computer <> current_user
              AND u.revision > COALESCE((\(cursorText)::jsonb ->> u.computer::text)::bigint, 0)
            ORDER BY u.computer, u.revision, u.local_id
            """, logger: logger)
        var intervals: [ElsewhereInterval] = []
        var moved = cursors
        var raw: [(ElsewhereInterval, Double)] = []
        for try await row in rows {
            let (
                computer, name, ledger, id, application, applicationName, categories, start, duration, isOpen,
                domain, revision, databaseNow
            ) = try row.decode(
                (String, String, String, Int64, String, String, String, Double, Double, Bool, String?, Int64, Double)
                    .self)
            moved[computer] = max(moved[computer] ?? 0, revision)
            raw.append(
                (
                    ElsewhereInterval(
                        computer: computer, computerName: name, ledger: ledger, remoteID: id, publicID: application,
                        displayName: applicationName, categories: categories, startedAt: start, duration: duration,
                        isOpen: isOpen, webDomain: domain), databaseNow
                ))
        }
        // The database's clock minus this computer's, at the answer: a start on the
        // database's clock less it is on this computer's.
        if let databaseNow = raw.first?.1 {
            let skew = question.skew(databaseNow: databaseNow)
            for (interval, _) in raw {
                var local = interval
                local.startedAt -= skew
                if local.startedAt + local.duration > since.timeIntervalSince1970 { intervals.append(local) }
            }
        }
        return (intervals, moved)
    }
}
