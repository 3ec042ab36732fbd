import Foundation
import GRDB

/// One of this ledger's intervals as the household's database takes it: the application by
/// its public id (tokens are this computer's own), times on this computer's clock.
public struct HouseholdUpload: Sendable, Equatable {
    public var id: Int64
    public var publicID: String
    public var displayName: String
    /// The desktop entry's categories joined by `;`, as the ledger keeps them.
    public var categories: String
    /// Unix seconds.
    public var startedAt: Double
    public var duration: Double
    public var isOpen: Bool
    public var webDomain: String?

    public init(
        id: Int64, publicID: String, displayName: String, categories: String, startedAt: Double, duration: Double,
        isOpen: Bool, webDomain: String?
    ) {
        self.id = id
        self.publicID = publicID
        self.displayName = displayName
        self.categories = categories
        self.startedAt = startedAt
        self.duration = duration
        self.isOpen = isOpen
        self.webDomain = webDomain
    }
}

/// Another computer's interval of the same child, as read from the household's database.
public struct ElsewhereInterval: Sendable, Equatable {
    /// The other computer's database role, and the name people know it by.
    public var computer: String
    public var computerName: String
    /// The other computer's ledger and its interval's id there: the key.
    public var ledger: String
    public var remoteID: Int64
    public var publicID: String
    public var displayName: String
    public var categories: String
    /// Unix seconds on this computer's clock.
    public var startedAt: Double
    public var duration: Double
    public var isOpen: Bool
    public var webDomain: String?

    public init(
        computer: String, computerName: String, ledger: String, remoteID: Int64, publicID: String,
        displayName: String, categories: String, startedAt: Double, duration: Double, isOpen: Bool,
        webDomain: String?
    ) {
        self.computer = computer
        self.computerName = computerName
        self.ledger = ledger
        self.remoteID = remoteID
        self.publicID = publicID
        self.displayName = displayName
        self.categories = categories
        self.startedAt = startedAt
        self.duration = duration
        self.isOpen = isOpen
        self.webDomain = webDomain
    }
}

/// The ledger's side of a household (docs/household.md): what it has still to upload, and
/// the other computers' usage it last read.
extension Ledger {
    /// This ledger's key in the household's database, made the first time it is asked for.
    public func householdLedgerID() throws -> String {
        try database.write { db in
            if let id = try String.fetchOne(db, sql: "SELECT ledgerID FROM householdUpload WHERE id = 1") {
                return id
            }
            let id = UUID().uuidString.lowercased()
            try db.execute(sql: "INSERT INTO householdUpload (id, ledgerID) VALUES (1, ?)", arguments: [id])
            return id
        }
    }

    /// The intervals not yet uploaded closed, oldest first, at most `limit`: every interval
    /// after the last one known uploaded closed, the open ones among them included.
    public func intervalsToUpload(limit: Int = 2_000) throws -> [HouseholdUpload] {
        try database.read { db in
            let through = try Int64.fetchOne(db, sql: "SELECT uploadedThrough FROM householdUpload WHERE id = 1") ?? 0
            return try Row.fetchAll(
                db,
                sql: """
                    SELECT u.id, a.publicID, a.displayName, a.categories, u.startedAt, u.duration, u.isOpen, u.webDomain
                    FROM usageInterval u JOIN application a ON a.token = u.token
                    WHERE u.id > ? ORDER BY u.id LIMIT ?
                    """,
                arguments: [through, limit]
            ).map { row in
                HouseholdUpload(
                    id: row["id"], publicID: row["publicID"], displayName: row["displayName"],
                    categories: row["categories"], startedAt: row["startedAt"], duration: row["duration"],
                    isOpen: row["isOpen"], webDomain: row["webDomain"])
            }
        }
    }

    /// Records that `uploaded` (a batch from `intervalsToUpload`, in its order) reached the
    /// household's database: the mark moves past every closed interval before the first
    /// open one, which is sent again until it closes.
    public func recordUploaded(_ uploaded: [HouseholdUpload]) throws {
        let closedPrefix = uploaded.prefix { !$0.isOpen }
        guard let last = closedPrefix.last else { return }
        try database.write { db in
            try db.execute(
                sql: "UPDATE householdUpload SET uploadedThrough = MAX(uploadedThrough, ?) WHERE id = 1",
                arguments: [last.id])
        }
    }

    /// How far each other computer's changes were read.
    public func elsewhereCursors() throws -> [String: Int64] {
        try database.read { db in
            var cursors: [String: Int64] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT computer, revision FROM elsewhereCursor") {
                cursors[row["computer"]] = row["revision"]
            }
            return cursors
        }
    }

    /// Keeps what was read of the other computers and how far, in one transaction: an
    /// interval read again replaces itself, so nothing counts twice whatever was kept before.
    public func storeElsewhere(_ intervals: [ElsewhereInterval], cursors: [String: Int64]) throws {
        try database.write { db in
            let insert = try db.cachedStatement(
                sql: """
                    INSERT INTO elsewhereInterval
                      (computer, ledger, remoteID, computerName, publicID, displayName, categories, startedAt,
                       duration, isOpen, webDomain)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (computer, ledger, remoteID) DO UPDATE SET
                      computerName = excluded.computerName, startedAt = excluded.startedAt,
                      duration = excluded.duration, isOpen = excluded.isOpen
                    """)
            for interval in intervals {
                try insert.execute(arguments: [
                    interval.computer, interval.ledger, interval.remoteID, interval.computerName, interval.publicID,
                    interval.displayName, interval.categories, interval.startedAt, interval.duration,
                    interval.isOpen, interval.webDomain,
                ])
            }
            for (computer, revision) in cursors {
                try db.execute(
                    sql: """
                        INSERT INTO elsewhereCursor (computer, revision) VALUES (?, ?)
                        ON CONFLICT (computer) DO UPDATE SET revision = MAX(revision, excluded.revision)
                        """,
                    arguments: [computer, revision])
            }
        }
    }

    /// The other computers' intervals that end after `since`, by start.
    public func elsewhereIntervals(since: Date) throws -> [ElsewhereInterval] {
        try database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM elsewhereInterval WHERE startedAt + duration > ?
                    ORDER BY startedAt, computer, remoteID
                    """,
                arguments: [since.timeIntervalSince1970]
            ).map { row in
                ElsewhereInterval(
                    computer: row["computer"], computerName: row["computerName"], ledger: row["ledger"],
                    remoteID: row["remoteID"], publicID: row["publicID"], displayName: row["displayName"],
                    categories: row["categories"], startedAt: row["startedAt"], duration: row["duration"],
                    isOpen: row["isOpen"], webDomain: row["webDomain"])
            }
        }
    }

    /// The other computers' usage inside `[since, until)`, per computer and application (and
    /// website, by domain), clipped at the edges, as last read.
    public func usageElsewhere(since: Date, until: Date) throws -> [UsageReport.ComputerUsage] {
        let arguments: StatementArguments = [
            "since": since.timeIntervalSince1970, "until": until.timeIntervalSince1970,
        ]
        let clipped = "SUM(MAX(0, MIN(startedAt + duration, :until) - MAX(startedAt, :since)))"
        let (apps, sites) = try database.read { db in
            (
                try Row.fetchAll(
                    db,
                    sql: """
                        SELECT computerName, publicID, MAX(displayName) AS displayName, \(clipped) AS seconds
                        FROM elsewhereInterval WHERE startedAt < :until AND startedAt + duration > :since
                        GROUP BY computerName, publicID HAVING seconds > 0
                        ORDER BY computerName, seconds DESC, displayName
                        """, arguments: arguments),
                try Row.fetchAll(
                    db,
                    sql: """
                        SELECT computerName, publicID, webDomain, \(clipped) AS seconds
                        FROM elsewhereInterval
                        WHERE startedAt < :until AND startedAt + duration > :since AND webDomain IS NOT NULL
                        GROUP BY computerName, publicID, webDomain HAVING seconds > 0
                        """, arguments: arguments)
            )
        }
        var sitesByApp: [String: [String: [String: Double]]] = [:]
        for row in sites {
            let key = "\(row["computerName"] as String)\u{0}\(row["publicID"] as String)"
            let domain: String = row["webDomain"]
            sitesByApp[key, default: [:]][domain, default: [:]][domain, default: 0] += row["seconds"]
        }
        var computers: [UsageReport.ComputerUsage] = []
        for row in apps {
            let name: String = row["computerName"]
            let id: String = row["publicID"]
            let app = UsageReport.AppUsage(
                id: id, name: row["displayName"], token: "", seconds: row["seconds"],
                websites: UsageReport.sites(sitesByApp["\(name)\u{0}\(id)"] ?? [:]))
            if computers.last?.name == name {
                computers[computers.count - 1].apps.append(app)
            } else {
                computers.append(UsageReport.ComputerUsage(name: name, apps: [app]))
            }
        }
        return computers
    }
}
