import Foundation
import GRDB
import ScreenwardIPC
import UsageLedger

/// A rule as the ledger keeps it.
public struct StoredRule: Sendable, Hashable {
    public var rule: Rule
    public var createdAt: Date
    public var createdBy: String
}

/// A relaxation of a locked rule, waiting for its time (`rule` nil: the rule's removal).
public struct PendingRuleChange: Sendable, Hashable, Codable {
    public var name: String
    public var rule: Rule?
    public var askedAt: Date
    public var effectiveAt: Date
}

/// An application our rules never shield.
public struct AllowedApplication: Sendable, Hashable, Codable {
    /// An application's id, or `site:DOMAIN` for a website.
    public var id: String
    public var addedAt: Date
    /// When the allowance counts (later than `addedAt` while a locked rule holds).
    public var effectiveAt: Date

    /// How an allowed website's id begins.
    public static let sitePrefix = "site:"

    /// The website this allowance is for (nil: an application).
    public var website: String? { id.hasPrefix(Self.sitePrefix) ? String(id.dropFirst(Self.sitePrefix.count)) : nil }
}

/// Extra time on a rule, for the interval it was given in.
public struct RuleGrant: Sendable, Hashable, Codable {
    public var id: Int64
    public var rule: String
    /// A downtime's extra time is for one application (the rules app's token for it).
    public var application: String?
    /// nil: until the interval ends.
    public var seconds: TimeInterval?
    public var grantedAt: Date
    public var grantedBy: String
    public var interval: DateInterval
}

public enum RuleLedgerError: Error, Equatable {
    case duplicateName(String)
    case noSuchRule(String)
}

extension Ledger {
    // MARK: Rules

    public func rules() throws -> [StoredRule] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM rule ORDER BY createdAt, name").map { row in
                StoredRule(
                    rule: try JSONDecoder().decode(Rule.self, from: row["definition"] as Data),
                    createdAt: Date(timeIntervalSince1970: row["createdAt"]), createdBy: row["createdBy"])
            }
        }
    }

    /// Adds a rule; a rule of the same name (in any case) is refused.
    public func insertRule(_ rule: Rule, by actor: String, at time: Date) throws {
        let definition = try JSONEncoder().encode(rule)
        try database.write { db in
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM rule WHERE name = ?", arguments: [rule.name]) == true {
                throw RuleLedgerError.duplicateName(rule.name)
            }
            try db.execute(
                sql: "INSERT INTO rule (name, definition, createdAt, createdBy) VALUES (?, ?, ?, ?)",
                arguments: [rule.name, definition, time.timeIntervalSince1970, actor])
        }
    }

    /// Replaces the definition of an existing rule, and forgets a relaxation it was waiting for.
    public func replaceRule(_ rule: Rule) throws {
        let definition = try JSONEncoder().encode(rule)
        try database.write { db in
            try db.execute(sql: "UPDATE rule SET definition = ? WHERE name = ?", arguments: [definition, rule.name])
            guard db.changesCount == 1 else { throw RuleLedgerError.noSuchRule(rule.name) }
            try db.execute(sql: "DELETE FROM pendingRuleChange WHERE name = ?", arguments: [rule.name])
        }
    }

    public func deleteRule(named name: String) throws {
        try database.write { db in
            try db.execute(sql: "DELETE FROM rule WHERE name = ?", arguments: [name])
            guard db.changesCount == 1 else { throw RuleLedgerError.noSuchRule(name) }
            try db.execute(sql: "DELETE FROM pendingRuleChange WHERE name = ?", arguments: [name])
        }
    }

    // MARK: Relaxations waiting for their time

    public func pendingRuleChanges() throws -> [PendingRuleChange] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM pendingRuleChange ORDER BY effectiveAt").map { row in
                PendingRuleChange(
                    name: row["name"],
                    rule: try (row["definition"] as Data?).map { try JSONDecoder().decode(Rule.self, from: $0) },
                    askedAt: Date(timeIntervalSince1970: row["askedAt"]),
                    effectiveAt: Date(timeIntervalSince1970: row["effectiveAt"]))
            }
        }
    }

    /// Records a relaxation; it replaces one the rule was already waiting for.
    public func setPendingRuleChange(_ change: PendingRuleChange) throws {
        let definition = try change.rule.map { try JSONEncoder().encode($0) }
        try database.write { db in
            try db.execute(
                sql:
                    """
                    INSERT OR REPLACE INTO pendingRuleChange (name, definition, askedAt, effectiveAt) \
                    VALUES (?, ?, ?, ?)
                    """,
                arguments: [
                    change.name, definition, change.askedAt.timeIntervalSince1970,
                    change.effectiveAt.timeIntervalSince1970,
                ])
        }
    }

    // MARK: Always allowed

    public func allowedApplications() throws -> [AllowedApplication] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM allowedApplication ORDER BY id").map { row in
                AllowedApplication(
                    id: row["id"], addedAt: Date(timeIntervalSince1970: row["addedAt"]),
                    effectiveAt: Date(timeIntervalSince1970: row["effectiveAt"]))
            }
        }
    }

    /// Allows an application from `effectiveAt` on; an earlier allowance of it stays as it was.
    public func allowApplication(_ id: String, at time: Date, effectiveAt: Date) throws {
        try database.write { db in
            try db.execute(
                sql: "INSERT OR IGNORE INTO allowedApplication (id, addedAt, effectiveAt) VALUES (?, ?, ?)",
                arguments: [id, time.timeIntervalSince1970, effectiveAt.timeIntervalSince1970])
        }
    }

    /// Returns whether the application was allowed (or waiting to be).
    @discardableResult
    public func disallowApplication(_ id: String) throws -> Bool {
        try database.write { db in
            try db.execute(sql: "DELETE FROM allowedApplication WHERE id = ?", arguments: [id])
            return db.changesCount > 0
        }
    }

    // MARK: Extra time

    /// The grants for intervals that have not ended by `time`.
    public func ruleGrants(endingAfter time: Date) throws -> [RuleGrant] {
        try database.read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM ruleGrant WHERE intervalEnd > ? ORDER BY id",
                arguments: [time.timeIntervalSince1970]
            ).map { row in
                RuleGrant(
                    id: row["id"], rule: row["rule"], application: row["application"], seconds: row["seconds"],
                    grantedAt: Date(timeIntervalSince1970: row["grantedAt"]), grantedBy: row["grantedBy"],
                    interval: DateInterval(
                        start: Date(timeIntervalSince1970: row["intervalStart"]),
                        end: Date(timeIntervalSince1970: row["intervalEnd"])))
            }
        }
    }

    @discardableResult
    public func insertRuleGrant(
        rule: String, application: String?, seconds: TimeInterval?, by actor: String, at time: Date,
        interval: DateInterval, requestID: Int64? = nil
    ) throws -> Int64 {
        try database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO ruleGrant (rule, application, seconds, grantedAt, grantedBy, intervalStart, \
                    intervalEnd, requestID)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    rule, application, seconds, time.timeIntervalSince1970, actor, interval.start.timeIntervalSince1970,
                    interval.end.timeIntervalSince1970, requestID,
                ])
            return db.lastInsertedRowID
        }
    }
}

/// "Ask for more time": a managed user's request, and the guardian's answer.
public struct TimeRequest: Sendable, Hashable, Codable {
    public enum State: String, Sendable, Codable {
        case pending, approved, denied, expired

        /// The state as a word for people (the raw value is for scripts).
        public var phrase: Phrase {
            switch self {
            case .pending: Phrase("pending", context: "request.state")
            case .approved: Phrase("approved", context: "request.state")
            case .denied: Phrase("denied", context: "request.state")
            case .expired: Phrase("expired", context: "request.state")
            }
        }
    }

    public var id: Int64
    public var rule: String
    /// The application shown on the shield (the rules app's token for it) and its name.
    public var application: String
    public var applicationName: String
    public var askedAt: Date
    public var state: State
    public var answeredAt: Date?
    public var answeredBy: String?
    /// What was granted (nil with `approved`: the rest of the day).
    public var grantedSeconds: TimeInterval?
    /// Whose request it is, when a guardian lists every managed user's (not stored).
    public var user: String?
    /// The household's computer it was asked on, when not this one (docs/household.md; not stored).
    public var computer: String?

    public init(
        id: Int64, rule: String, application: String, applicationName: String, askedAt: Date, state: State,
        answeredAt: Date? = nil, answeredBy: String? = nil, grantedSeconds: TimeInterval? = nil,
        user: String? = nil, computer: String? = nil
    ) {
        self.id = id
        self.rule = rule
        self.application = application
        self.applicationName = applicationName
        self.askedAt = askedAt
        self.state = state
        self.answeredAt = answeredAt
        self.answeredBy = answeredBy
        self.grantedSeconds = grantedSeconds
        self.user = user
        self.computer = computer
    }
}

extension Ledger {
    public func timeRequests(since time: Date) throws -> [TimeRequest] {
        try database.read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM timeRequest WHERE askedAt >= ? OR state = 'pending' ORDER BY id",
                arguments: [time.timeIntervalSince1970]
            )
            .map(Self.timeRequest)
        }
    }

    public func timeRequest(id: Int64) throws -> TimeRequest? {
        try database.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM timeRequest WHERE id = ?", arguments: [id]).map(Self.timeRequest)
        }
    }

    /// Records a request; a pending one for the same rule and application is kept instead.
    /// Returns it and whether it is new.
    public func askForTime(rule: String, application: String, applicationName: String, at time: Date) throws -> (
        TimeRequest, isNew: Bool
    ) {
        let (id, isNew) = try database.write { db -> (Int64, Bool) in
            if let existing = try Int64.fetchOne(
                db, sql: "SELECT id FROM timeRequest WHERE rule = ? AND application = ? AND state = 'pending'",
                arguments: [rule, application])
            {
                return (existing, false)
            }
            try db.execute(
                sql:
                    """
                    INSERT INTO timeRequest (rule, application, applicationName, askedAt, state) \
                    VALUES (?, ?, ?, ?, 'pending')
                    """,
                arguments: [rule, application, applicationName, time.timeIntervalSince1970])
            return (db.lastInsertedRowID, true)
        }
        guard let request = try timeRequest(id: id) else { throw RuleLedgerError.noSuchRule(rule) }
        return (request, isNew)
    }

    /// Answers a pending request; false when it was not pending (answered already, or expired).
    public func answerTimeRequest(
        id: Int64, state: TimeRequest.State, by actor: String, seconds: TimeInterval?, at time: Date
    ) throws -> Bool {
        try database.write { db in
            try db.execute(
                sql:
                    """
                    UPDATE timeRequest SET state = ?, answeredAt = ?, answeredBy = ?, grantedSeconds = ? \
                    WHERE id = ? AND state = 'pending'
                    """,
                arguments: [state.rawValue, time.timeIntervalSince1970, actor, seconds, id])
            return db.changesCount == 1
        }
    }

    private static func timeRequest(_ row: Row) -> TimeRequest {
        TimeRequest(
            id: row["id"], rule: row["rule"], application: row["application"], applicationName: row["applicationName"],
            askedAt: Date(timeIntervalSince1970: row["askedAt"]),
            state: TimeRequest.State(rawValue: row["state"]) ?? .expired,
            answeredAt: (row["answeredAt"] as Double?).map(Date.init(timeIntervalSince1970:)),
            answeredBy: row["answeredBy"],
            grantedSeconds: row["grantedSeconds"])
    }
}
