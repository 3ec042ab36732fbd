import Foundation
import PostgresNIO
import ScreenwardCore

/// Extra time on a child's limits between this computer and the household's database
/// (docs/household.md). Each computer writes the extra time given there, once (a grant never
/// changes); every other computer reads it and keeps it as a grant of its own, by its key,
/// so that a limit allows the same everywhere, as it counts the same usage everywhere.
enum ExtraTimeExchange {
    static func upload(
        _ grants: [SharedExtraTime], child: String, ledgerID: String, on connection: PostgresConnection
    ) async throws {
        guard !grants.isEmpty else { return }
        let logger = HouseholdDatabase.logger
        try await connection.withTransaction(logger: logger) { connection in
            try await UsageExchange.name(child: child, on: connection)
            // The database's clock minus this computer's, as near as one question tells.
            let sentAt = Date().timeIntervalSince1970
            for grant in grants {
                try await connection.query(
                    """
                    INSERT INTO extra_time
                      (ledger, local_id, child, rule, seconds, granted_at, granted_by, day_start, day_end)
                    SELECT \(ledgerID)::uuid, \(grant.localID), \(child), \(grant.rule), \(grant.seconds),
                           \(grant.grantedAt.timeIntervalSince1970) + skew, \(grant.grantedBy),
                           \(grant.day.start.timeIntervalSince1970) + skew,
                           \(grant.day.end.timeIntervalSince1970) + skew
                    FROM (SELECT extract(epoch from clock_timestamp())::double precision - \(sentAt) AS skew) AS clock
                    ON CONFLICT DO NOTHING
                    """, logger: logger)
            }
            try await UsageExchange.notify(child: child, on: connection)
        }
    }

    /// The extra time given on the other computers to `child` for days that have not ended,
    /// its times moved onto this computer's clock.
    static func readElsewhere(child: String, on connection: PostgresConnection) async throws -> [SharedExtraTime] {
        let question = ClockQuestion()
        let rows = try await connection.query(
            """
            SELECT e.computer::text, c.name, e.ledger::text, e.local_id, e.rule, e.seconds, e.granted_at,
                   e.granted_by, e.day_start, e.day_end, extract(epoch from clock_timestamp())::double precision
            FROM extra_time e JOIN computer c ON c.role = e.computer
            WHERE e.child = \(child) AND e.computer <> current_user
              AND e.day_end > extract(epoch from clock_timestamp())::double precision
            ORDER BY e.granted_at
            """, logger: HouseholdDatabase.logger)
        var found: [SharedExtraTime] = []
        var skew: Double?
        for try await (role, name, ledger, id, rule, seconds, grantedAt, grantedBy, dayStart, dayEnd, databaseNow)
            in rows.decode(
                (String, String, String, Int64, String, Double?, Double, String, Double, Double, Double).self)
        {
            // The database's clock minus this computer's, at the answer.
            if skew == nil { skew = question.skew(databaseNow: databaseNow) }
            let skew = skew ?? 0
            found.append(
                SharedExtraTime(
                    origin: "\(role)/\(ledger)/\(id)", computer: name, localID: id, rule: rule, seconds: seconds,
                    grantedAt: Date(timeIntervalSince1970: grantedAt - skew), grantedBy: grantedBy,
                    day: DateInterval(
                        start: Date(timeIntervalSince1970: dayStart - skew),
                        end: Date(timeIntervalSince1970: max(dayEnd, dayStart + 1) - skew))))
        }
        return found
    }
}
