import Foundation
import PostgresNIO
import ScreenwardCore
import ScreenwardIPC

/// A request for more time asked on another computer of the household, as this one lists
/// it (`request list`) and answers it (`request approve|deny USER/N@COMPUTER`).
public struct ElsewhereRequest: Sendable, Hashable {
    /// Its id is the other computer's, its `computer` that computer's name.
    public var request: TimeRequest
    /// Its key in the household's database, and whose it is.
    var computerRole: String
    var ledger: String
    var child: String
}

/// An answer given on another computer to a request asked here.
public struct ElsewhereAnswer: Sendable, Hashable {
    public var requestID: Int64
    public var approve: Bool
    public var seconds: TimeInterval?
    /// Who answered, and on which computer (`alice on desktop`).
    public var actor: String
    /// Whether the one who answered is among the guardians that computer told the household
    /// of: an answer by anyone else is not applied.
    public var byHouseholdGuardian: Bool
}

/// Requests for more time and their answers between this computer and the household's
/// database (docs/household.md). Each computer writes its own requests (their state as it
/// keeps them); a guardian on any other computer writes an answer, which names that
/// computer; the asking computer applies it as if given there.
enum RequestsExchange {
    /// How far back requests are shared: today's, and yesterday's still pending.
    static let window: TimeInterval = 86_400

    static func upload(
        _ requests: [TimeRequest], child: String, ledgerID: String, on connection: PostgresConnection
    ) async throws {
        guard !requests.isEmpty else { return }
        let logger = HouseholdDatabase.logger
        try await connection.withTransaction(logger: logger) { connection in
            try await UsageExchange.name(child: child, on: connection)
            for request in requests {
                try await connection.query(
                    """
                    INSERT INTO time_request (ledger, local_id, child, rule, application_name, asked_at, state)
                    VALUES (\(ledgerID)::uuid, \(request.id), \(child), \(request.rule), \(request.applicationName),
                            \(request.askedAt), \(request.state.rawValue))
                    ON CONFLICT (computer, ledger, local_id) DO UPDATE SET state = excluded.state
                    """, logger: logger)
            }
            try await UsageExchange.notify(child: child, on: connection)
        }
    }

    /// The other computers' requests of `child` from the last day, with their answers.
    static func readElsewhere(child: String, on connection: PostgresConnection) async throws -> [ElsewhereRequest] {
        let since = Date().addingTimeInterval(-window)
        let rows = try await connection.query(
            """
            SELECT r.computer::text, c.name, r.ledger::text, r.local_id, r.rule, r.application_name, r.asked_at,
                   r.state, a.approved, a.seconds, a.answered_by, ac.name, a.answered_at
            FROM time_request r JOIN computer c ON c.role = r.computer
              LEFT JOIN time_answer a USING (computer, ledger, local_id)
              LEFT JOIN computer ac ON ac.role = a.answered_on
            WHERE r.child = \(child) AND r.computer <> current_user AND (r.asked_at > \(since) OR r.state = 'pending')
            ORDER BY r.asked_at
            """, logger: HouseholdDatabase.logger)
        var found: [ElsewhereRequest] = []
        for try await (
            role, name, ledger, id, rule, application, askedAt, state, approved, seconds, answeredBy, answeredOn,
            answeredAt
        ) in rows.decode(
            (
                String, String, String, Int64, String, String, Date, String, Bool?, Double?, String?, String?, Date?
            ).self)
        {
            var request = TimeRequest(
                id: id, rule: rule, application: "", applicationName: application, askedAt: askedAt,
                state: TimeRequest.State(rawValue: state) ?? .expired, answeredAt: answeredAt,
                answeredBy: zip2(answeredBy, answeredOn).map { "\($0) on \($1)" }, grantedSeconds: seconds)
            // An answer given and not yet applied there is shown as given.
            if request.state == .pending, let approved { request.state = approved ? .approved : .denied }
            request.computer = name
            found.append(ElsewhereRequest(request: request, computerRole: role, ledger: ledger, child: child))
        }
        return found
    }

    /// The answers given elsewhere to this computer's requests in `ledgerID`.
    static func answersToMine(ledgerID: String, on connection: PostgresConnection) async throws -> [ElsewhereAnswer] {
        let rows = try await connection.query(
            """
            SELECT a.local_id, a.approved, a.seconds, a.answered_by, c.name, g.name IS NOT NULL
            FROM time_answer a JOIN computer c ON c.role = a.answered_on
              LEFT JOIN household_guardian g ON g.computer = a.answered_on AND g.name = a.answered_by
            WHERE a.computer = current_user AND a.ledger = \(ledgerID)::uuid
            """, logger: HouseholdDatabase.logger)
        var answers: [ElsewhereAnswer] = []
        for try await (id, approved, seconds, by, on, byGuardian) in rows.decode(
            (Int64, Bool, Double?, String, String, Bool).self)
        {
            answers.append(
                ElsewhereAnswer(
                    requestID: id, approve: approved, seconds: seconds, actor: "\(by) on \(on)",
                    byHouseholdGuardian: byGuardian))
        }
        return answers
    }

    /// Writes a guardian's answer to a request asked on another computer; the first answer stands.
    static func answer(
        _ request: ElsewhereRequest, approve: Bool, seconds: TimeInterval?, by guardian: String,
        on connection: PostgresConnection
    ) async throws {
        let logger = HouseholdDatabase.logger
        try await connection.withTransaction(logger: logger) { connection in
            var written = false
            for try await _ in try await connection.query(
                """
                INSERT INTO time_answer (computer, ledger, local_id, approved, seconds, answered_by)
                VALUES (\(request.computerRole), \(request.ledger)::uuid, \(request.request.id), \(approve), \(seconds),
                        \(guardian))
                ON CONFLICT DO NOTHING RETURNING 1
                """, logger: logger
            ).decode(Int.self) {
                written = true
            }
            guard written else {
                throw HouseholdError(
                    Phrase(
                        "request {id} on {computer} was already answered", context: "household",
                        ["id": String(request.request.id), "computer": request.request.computer ?? "?"]))
            }
            try await UsageExchange.notify(child: request.child, on: connection)
        }
    }
}

private func zip2<A, B>(_ a: A?, _ b: B?) -> (A, B)? {
    guard let a, let b else { return nil }
    return (a, b)
}

/// Each computer's guardians, as it tells the household.
enum GuardiansExchange {
    /// Makes this computer's guardians in the household's database `names`.
    static func publish(_ names: [String], on connection: PostgresConnection) async throws {
        let logger = HouseholdDatabase.logger
        try await connection.withTransaction(logger: logger) { connection in
            try await connection.query("DELETE FROM household_guardian WHERE computer = current_user", logger: logger)
            try await connection.query(
                "INSERT INTO household_guardian (name) SELECT unnest(\(names)::text[]) ON CONFLICT DO NOTHING",
                logger: logger)
        }
    }
}
