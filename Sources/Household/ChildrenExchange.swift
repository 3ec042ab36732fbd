import Foundation
import PostgresNIO
import ScreenwardCore

/// A child managed by the household or not, as a guardian said on any computer
/// (docs/household.md): `child add` or `child remove` on one computer is written here, and
/// every other computer with an account of that name follows.
public struct HouseholdChildChange: Sendable, Hashable {
    public var name: String
    public var managed: Bool
    /// Who said so, and on which computer (`alice on desktop`).
    public var actor: String
    /// When, on this computer's clock.
    public var at: Date
}

enum ChildrenExchange {
    /// Writes a guardian's word on this computer: `name` managed or not, from now.
    static func publish(
        _ name: String, managed: Bool, by guardian: String, on connection: PostgresConnection
    ) async throws {
        try await connection.query(
            """
            INSERT INTO child (name, managed, changed_by, changed_on, changed_at)
            VALUES (\(name), \(managed), \(guardian), current_user,
                    extract(epoch from clock_timestamp())::double precision)
            ON CONFLICT (name) DO UPDATE SET managed = excluded.managed, changed_by = excluded.changed_by,
              changed_on = excluded.changed_on, changed_at = excluded.changed_at
            """, logger: HouseholdDatabase.logger)
        try await UsageExchange.notify(child: name, on: connection)
    }

    /// Every child a guardian changed on a computer (the others were only named by uploads:
    /// managed where they were), with when on this computer's clock.
    static func read(on connection: PostgresConnection) async throws -> [HouseholdChildChange] {
        let question = ClockQuestion()
        let rows = try await connection.query(
            """
            SELECT h.name, h.managed, h.changed_by, c.name, h.changed_at,
                   extract(epoch from clock_timestamp())::double precision
            FROM child h JOIN computer c ON c.role = h.changed_on
            WHERE h.changed_at IS NOT NULL AND h.changed_on <> current_user
            ORDER BY h.name
            """, logger: HouseholdDatabase.logger)
        var changes: [HouseholdChildChange] = []
        var skew: Double?
        for try await (name, managed, by, computer, at, databaseNow) in rows.decode(
            (String, Bool, String, String, Double, Double).self)
        {
            if skew == nil { skew = question.skew(databaseNow: databaseNow) }
            changes.append(
                HouseholdChildChange(
                    name: name, managed: managed, actor: "\(by) on \(computer)",
                    at: Date(timeIntervalSince1970: at - (skew ?? 0))))
        }
        return changes
    }
}
