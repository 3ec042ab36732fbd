import Foundation
import PostgresNIO
import ScreenwardCore

/// What happened to a child's limits on each computer (`screenward child events`), for the
/// guardians on every other (docs/household.md). Each computer writes its own events once;
/// every other reads those written since it last looked.
enum EventsExchange {
    /// How far back events are shared, and kept of the other computers.
    static let window: TimeInterval = 30 * 86_400
    /// Events sent in one exchange at most (a computer joining with a long record sends it
    /// over a few seconds).
    static let batch = 500

    static func upload(
        _ events: [(id: Int64, event: ChildEvent)], child: String, ledgerID: String, on connection: PostgresConnection
    ) async throws {
        guard !events.isEmpty else { return }
        let logger = HouseholdDatabase.logger
        let ids = events.map(\.id)
        let ats = events.map(\.event.at.timeIntervalSince1970)
        let kinds = events.map(\.event.kind.rawValue)
        let actors = events.map(\.event.actor)
        let details = events.map(\.event.detail)
        let sentAt = Date().timeIntervalSince1970
        try await connection.withTransaction(logger: logger) { connection in
            try await UsageExchange.name(child: child, on: connection)
            // Times move onto the database's clock, as near as one question tells.
            try await connection.query(
                """
                INSERT INTO child_event (ledger, local_id, child, at, kind, actor, detail)
                SELECT \(ledgerID)::uuid, id, \(child),
                       at + extract(epoch from clock_timestamp())::double precision - \(sentAt), kind, actor, detail
                FROM unnest(\(ids)::bigint[], \(ats)::double precision[], \(kinds)::text[], \(actors)::text[],
                            \(details)::text[]) AS t (id, at, kind, actor, detail)
                ON CONFLICT DO NOTHING
                """, logger: logger)
            try await UsageExchange.notify(child: child, on: connection)
        }
    }

    /// The other computers' events of `child` that arrived after `writtenAfter` (the
    /// database's clock; nil: all within the window), keyed, their times on this computer's
    /// clock; and the latest arrival among them.
    static func readElsewhere(
        child: String, writtenAfter: Double?, on connection: PostgresConnection
    ) async throws -> (events: [String: ChildEvent], latest: Double?) {
        let question = ClockQuestion()
        let rows = try await connection.query(
            """
            SELECT e.computer::text, c.name, e.ledger::text, e.local_id, e.at, e.kind, e.actor, e.detail,
                   extract(epoch from e.written_at)::double precision,
                   extract(epoch from clock_timestamp())::double precision
            FROM child_event e JOIN computer c ON c.role = e.computer
            WHERE e.child = \(child) AND e.computer <> current_user
              AND e.written_at > to_timestamp(\(writtenAfter ?? 0))
              AND e.at > extract(epoch from clock_timestamp())::double precision - \(window)
            """, logger: HouseholdDatabase.logger)
        var events: [String: ChildEvent] = [:]
        var latest: Double?
        var skew: Double?
        for try await (role, name, ledger, id, at, kind, actor, detail, writtenAt, databaseNow) in rows.decode(
            (String, String, String, Int64, Double, String, String, String, Double, Double).self)
        {
            if skew == nil { skew = question.skew(databaseNow: databaseNow) }
            events["\(role)/\(ledger)/\(id)"] = ChildEvent(
                at: Date(timeIntervalSince1970: at - (skew ?? 0)), kind: ChildEvent.Kind(rawValue: kind), actor: actor,
                detail: detail, computer: name)
            latest = max(latest ?? writtenAt, writtenAt)
        }
        return (events, latest)
    }
}
