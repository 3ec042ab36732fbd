import Foundation
import GRDB
import UsageLedger

/// A managed person's rules as their household shares them (docs/household.md): every rule
/// and what is always allowed. Extra time and requests for it are shared their own way
/// (`SharedExtraTime`, requests by the sync); relaxations waiting are not (a guardian's rules
/// are never locked).
public struct HouseholdRules: Sendable, Hashable, Codable {
    public struct Entry: Sendable, Hashable, Codable {
        public var rule: Rule
        public var createdAt: Date
        public var createdBy: String

        public init(rule: Rule, createdAt: Date, createdBy: String) {
            self.rule = rule
            self.createdAt = createdAt
            self.createdBy = createdBy
        }
    }

    /// In the order they were made.
    public var rules: [Entry]
    /// Application ids and `site:DOMAIN`s, sorted.
    public var allowed: [String]

    public init(rules: [Entry], allowed: [String]) {
        self.rules = rules
        self.allowed = allowed.sorted()
    }
}

extension Ledger {
    /// This person's rules and allowances as the household shares them.
    public func householdRules() throws -> HouseholdRules {
        HouseholdRules(
            rules: try rules().map {
                HouseholdRules.Entry(rule: $0.rule, createdAt: $0.createdAt, createdBy: $0.createdBy)
            },
            allowed: try allowedApplications().map(\.id))
    }

    /// Makes this person's rules and allowances `rules`, in one transaction; says whether
    /// anything changed. An allowance kept keeps its dates; a new one counts from `time`.
    public func replaceRules(with rules: HouseholdRules, at time: Date) throws -> Bool {
        guard try householdRules() != rules else { return false }
        let encoder = JSONEncoder()
        try database.write { db in
            try db.execute(sql: "DELETE FROM rule")
            try db.execute(sql: "DELETE FROM pendingRuleChange")
            for entry in rules.rules {
                try db.execute(
                    sql: "INSERT INTO rule (name, definition, createdAt, createdBy) VALUES (?, ?, ?, ?)",
                    arguments: [
                        entry.rule.name, try encoder.encode(entry.rule), entry.createdAt.timeIntervalSince1970,
                        entry.createdBy,
                    ])
            }
            let kept = Set(rules.allowed)
            for id in try String.fetchAll(db, sql: "SELECT id FROM allowedApplication") where !kept.contains(id) {
                try db.execute(sql: "DELETE FROM allowedApplication WHERE id = ?", arguments: [id])
            }
            for id in rules.allowed {
                try db.execute(
                    sql: "INSERT OR IGNORE INTO allowedApplication (id, addedAt, effectiveAt) VALUES (?, ?, ?)",
                    arguments: [id, time.timeIntervalSince1970, time.timeIntervalSince1970])
            }
        }
        return true
    }

    /// The household's version of these rules last published or taken here, and what it held.
    public func householdRulesState() throws -> (version: Int64, rules: HouseholdRules)? {
        try database.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT version, document FROM householdRules WHERE id = 1")
            else { return nil }
            return (row["version"], try JSONDecoder().decode(HouseholdRules.self, from: row["document"] as Data))
        }
    }

    public func setHouseholdRulesState(version: Int64, rules: HouseholdRules) throws {
        let document = try JSONEncoder().encode(rules)
        try database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO householdRules (id, version, document) VALUES (1, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET version = excluded.version, document = excluded.document
                    """,
                arguments: [version, document])
        }
    }
}
