import Foundation
import PostgresNIO
import ScreenwardCore
import ScreenwardIPC

/// A child's rules between this computer and the household's database (docs/household.md):
/// one document per child, with a version that goes up by one with each change.
enum RulesExchange {
    /// The household's rules of `child`, and their version (nil: none published yet).
    static func read(child: String, on connection: PostgresConnection) async throws -> (
        version: Int64, rules: HouseholdRules
    )? {
        let rows = try await connection.query(
            "SELECT version, document::text FROM child_rules WHERE child = \(child)", logger: HouseholdDatabase.logger)
        for try await (version, document) in rows.decode((Int64, String).self) {
            do {
                return (version, try JSONDecoder().decode(HouseholdRules.self, from: Data(document.utf8)))
            } catch {
                throw HouseholdError(
                    Phrase(
                        "the household's rules of {child} (version {version}) cannot be read: {error}",
                        context: "household", ["child": child, "version": String(version), "error": "\(error)"]))
            }
        }
        return nil
    }

    /// Publishes `rules` as `child`'s, over whatever was there: returns the new version.
    static func publish(_ rules: HouseholdRules, child: String, on connection: PostgresConnection) async throws
        -> Int64
    {
        let logger = HouseholdDatabase.logger
        let document = String(decoding: try JSONEncoder().encode(rules), as: UTF8.self)
        return try await connection.withTransaction(logger: logger) { connection in
            try await UsageExchange.name(child: child, on: connection)
            var version: Int64?
            for try await value in try await connection.query(
                """
                INSERT INTO child_rules (child, document, version) VALUES (\(child), \(document)::jsonb, 1)
                ON CONFLICT (child) DO UPDATE SET
                  document = excluded.document, version = child_rules.version + 1, changed_on = current_user,
                  changed_at = now()
                RETURNING version
                """, logger: logger
            ).decode(Int64.self) {
                version = value
            }
            try await UsageExchange.notify(child: child, on: connection)
            guard let version else {
                throw HouseholdError(
                    Phrase("the household's database kept no rules of {child}", context: "household", ["child": child]))
            }
            return version
        }
    }
}
