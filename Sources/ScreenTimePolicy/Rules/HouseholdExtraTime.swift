import Foundation
import GRDB
import UsageLedger

/// Extra time on a limit as a household shares it (docs/household.md): given on one computer
/// (a guardian's approval there, `screenward more`, or an answer from another computer
/// applied there), it counts on every other, as the usage it offsets does. A downtime's extra
/// time frees one application by this computer's token, and a pause is for the computer it
/// was given on: those stay where they were given.
public struct SharedExtraTime: Sendable, Hashable {
    /// Its key in the household's database when it was given on another computer; nil: here.
    public var origin: String?
    /// The computer it was given on (nil: here).
    public var computer: String?
    /// Its id in the ledger of the computer it was given on.
    public var localID: Int64
    public var rule: String
    /// nil: the rest of the day.
    public var seconds: TimeInterval?
    public var grantedAt: Date
    public var grantedBy: String
    /// The day it is for.
    public var day: DateInterval

    public init(
        origin: String?, computer: String?, localID: Int64, rule: String, seconds: TimeInterval?, grantedAt: Date,
        grantedBy: String, day: DateInterval
    ) {
        self.origin = origin
        self.computer = computer
        self.localID = localID
        self.rule = rule
        self.seconds = seconds
        self.grantedAt = grantedAt
        self.grantedBy = grantedBy
        self.day = day
    }
}

extension Ledger {
    /// The extra time on limits given on this computer for days that end after `time`: what
    /// the household's other computers count too.
    public func extraTimeToShare(endingAfter time: Date) throws -> [SharedExtraTime] {
        try database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM ruleGrant
                    WHERE origin IS NULL AND application IS NULL AND rule <> ? AND intervalEnd > ?
                    ORDER BY id
                    """,
                arguments: [RulesCore.pauseRule, time.timeIntervalSince1970]
            ).map { row in
                SharedExtraTime(
                    origin: nil, computer: nil, localID: row["id"], rule: row["rule"], seconds: row["seconds"],
                    grantedAt: Date(timeIntervalSince1970: row["grantedAt"]), grantedBy: row["grantedBy"],
                    day: DateInterval(
                        start: Date(timeIntervalSince1970: row["intervalStart"]),
                        end: Date(timeIntervalSince1970: row["intervalEnd"])))
            }
        }
    }

    /// Keeps the extra time given on other computers as this ledger's grants, each once (by
    /// its origin); returns those not kept before.
    public func storeExtraTimeGivenElsewhere(_ grants: [SharedExtraTime]) throws -> [SharedExtraTime] {
        try database.write { db in
            var stored: [SharedExtraTime] = []
            for grant in grants {
                guard let origin = grant.origin else { continue }
                try db.execute(
                    sql: """
                        INSERT OR IGNORE INTO ruleGrant
                          (rule, application, seconds, grantedAt, grantedBy, intervalStart, intervalEnd, origin)
                        VALUES (?, NULL, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        grant.rule, grant.seconds, grant.grantedAt.timeIntervalSince1970, grant.grantedBy,
                        grant.day.start.timeIntervalSince1970, grant.day.end.timeIntervalSince1970, origin,
                    ])
                if db.changesCount > 0 { stored.append(grant) }
            }
            return stored
        }
    }
}
