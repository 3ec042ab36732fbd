import Foundation
import GRDB
import ScreenwardBasics

/// Usage per application over a time range: what `screenward usage` prints.
public struct UsageReport: Sendable, Equatable, Codable {
    public struct AppUsage: Sendable, Equatable, Codable {
        /// The desktop id, or `wmclass:<class>` when no desktop entry matches.
        public var id: String
        public var name: String
        /// The application's opaque token (its text form).
        public var token: String
        public var seconds: Double
        /// The websites the application (a browser) showed, most used first: part of its time.
        public var websites: [SiteUsage]

        public init(id: String, name: String, token: String, seconds: Double, websites: [SiteUsage] = []) {
            self.id = id
            self.name = name
            self.token = token
            self.seconds = seconds
            self.websites = websites
        }
    }

    /// Time on one website (a registrable domain), and on each of its hosts.
    public struct SiteUsage: Sendable, Equatable, Codable {
        /// In ASCII (`xn--bcher-kva.de`); `Website.readableDomain` is how a person reads it.
        public var domain: String
        public var seconds: Double
        public var hosts: [HostUsage]

        public init(domain: String, seconds: Double, hosts: [HostUsage]) {
            self.domain = domain
            self.seconds = seconds
            self.hosts = hosts
        }

        public var readableDomain: String { HostName.readable(domain) }
    }

    public struct HostUsage: Sendable, Equatable, Codable {
        public var host: String
        public var seconds: Double
        public init(host: String, seconds: Double) {
            self.host = host
            self.seconds = seconds
        }
    }

    /// A managed person's usage on another computer of their household (docs/household.md),
    /// as this computer last read it. Tokens are this computer's own: its applications have none.
    public struct ComputerUsage: Sendable, Equatable, Codable {
        /// The name the household knows the computer by.
        public var name: String
        public var apps: [AppUsage]
        public var totalSeconds: Double { apps.reduce(0) { $0 + $1.seconds } }

        public init(name: String, apps: [AppUsage]) {
            self.name = name
            self.apps = apps
        }
    }

    public var since: Date
    public var until: Date
    /// This computer's.
    public var apps: [AppUsage]
    /// The other computers of the household, by name (the last 8 days are kept of them).
    public var elsewhere: [ComputerUsage] = []
    /// This computer's.
    public var totalSeconds: Double { apps.reduce(0) { $0 + $1.seconds } }
    /// Every computer's.
    public var householdSeconds: Double { totalSeconds + elsewhere.reduce(0) { $0 + $1.totalSeconds } }

    /// Every website in every browser, most used first.
    public var websites: [SiteUsage] {
        var byDomain: [String: [String: Double]] = [:]
        for app in apps {
            for site in app.websites {
                for host in site.hosts { byDomain[site.domain, default: [:]][host.host, default: 0] += host.seconds }
            }
        }
        return Self.sites(byDomain)
    }

    static func sites(_ byDomain: [String: [String: Double]]) -> [SiteUsage] {
        byDomain.map { domain, hosts in
            SiteUsage(
                domain: domain, seconds: hosts.values.reduce(0, +),
                hosts: hosts.map { HostUsage(host: $0.key, seconds: $0.value) }.sorted {
                    ($0.seconds, $1.host) > ($1.seconds, $0.host)
                })
        }
        .sorted { ($0.seconds, $1.domain) > ($1.seconds, $0.domain) }
    }

    enum CodingKeys: String, CodingKey { case since, until, apps, elsewhere }

    public init(since: Date, until: Date, apps: [AppUsage], elsewhere: [ComputerUsage] = []) {
        self.since = since
        self.until = until
        self.apps = apps
        self.elsewhere = elsewhere
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        since = try container.decode(Date.self, forKey: .since)
        until = try container.decode(Date.self, forKey: .until)
        apps = try container.decode([AppUsage].self, forKey: .apps)
        elsewhere = try container.decodeIfPresent([ComputerUsage].self, forKey: .elsewhere) ?? []
    }
}

extension Ledger {
    /// Sums usage per application inside `[since, until)`, clipping intervals that
    /// cross the edges. When `liveSessionID` names the running agent's session, its
    /// open interval counts up to `now` (the ledger itself is at most one checkpoint
    /// behind); an open interval of a dead session counts up to its last checkpoint.
    public func usage(since: Date, until: Date, liveSessionID: Int64?, now: Date) throws -> UsageReport {
        let rows = try database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    WITH effective AS (
                      SELECT token, startedAt,
                             CASE WHEN isOpen AND sessionID IS :live THEN MAX(endedAt, :now) ELSE endedAt END AS endedAt
                      FROM usageInterval
                      WHERE startedAt < :until
                    )
                    SELECT a.publicID, a.displayName, a.token,
                           SUM(MAX(0, MIN(e.endedAt, :until) - MAX(e.startedAt, :since))) AS seconds
                    FROM effective e JOIN application a ON a.token = e.token
                    WHERE e.endedAt > :since
                    GROUP BY a.token
                    HAVING seconds > 0
                    ORDER BY seconds DESC, a.displayName
                    """,
                arguments: [
                    "live": liveSessionID, "now": now.timeIntervalSince1970,
                    "since": since.timeIntervalSince1970, "until": until.timeIntervalSince1970,
                ])
        }
        // The same clipping, per application, website and host.
        let siteRows = try database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    WITH effective AS (
                      SELECT token, webDomain, webHost, startedAt,
                             CASE WHEN isOpen AND sessionID IS :live THEN MAX(endedAt, :now) ELSE endedAt END AS endedAt
                      FROM usageInterval
                      WHERE startedAt < :until AND webDomain IS NOT NULL
                    )
                    SELECT token, webDomain, webHost,
                           SUM(MAX(0, MIN(endedAt, :until) - MAX(startedAt, :since))) AS seconds
                    FROM effective
                    WHERE endedAt > :since
                    GROUP BY token, webDomain, webHost
                    HAVING seconds > 0
                    """,
                arguments: [
                    "live": liveSessionID, "now": now.timeIntervalSince1970,
                    "since": since.timeIntervalSince1970, "until": until.timeIntervalSince1970,
                ])
        }
        var sitesByToken: [String: [String: [String: Double]]] = [:]
        for row in siteRows {
            let token: String = row["token"]
            let domain: String = row["webDomain"]
            let host: String = row["webHost"] ?? domain
            sitesByToken[token, default: [:]][domain, default: [:]][host, default: 0] += row["seconds"]
        }
        let apps = rows.map { row in
            let token: String = row["token"]
            return UsageReport.AppUsage(
                id: row["publicID"], name: row["displayName"], token: token, seconds: row["seconds"],
                websites: UsageReport.sites(sitesByToken[token] ?? [:]))
        }
        return UsageReport(since: since, until: until, apps: apps)
    }

    /// The most recent agent run that has not recorded its end, if any.
    public func unfinishedAgentSession() throws -> (id: Int64, pid: Int32)? {
        try database.read { db in
            try Row.fetchOne(db, sql: "SELECT id, pid FROM agentSession WHERE endedAt IS NULL ORDER BY id DESC LIMIT 1")
                .map { ($0["id"], $0["pid"]) }
        }
    }

    public func agentStatus() throws -> AgentStatus? {
        try database.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM agentStatus WHERE id = 1").map { row in
                AgentStatus(
                    sessionID: row["sessionID"], pid: row["pid"], display: row["display"],
                    focusedID: row["focusedID"], focusedName: row["focusedName"],
                    isIdle: row["isIdle"], isLocked: row["isLocked"], idleThreshold: row["idleThreshold"],
                    updatedAt: Date(timeIntervalSince1970: row["updatedAt"]))
            }
        }
    }
}

/// What the running agent last said about the session.
public struct AgentStatus: Sendable, Equatable {
    public var sessionID: Int64
    public var pid: Int32
    public var display: String
    public var focusedID: String?
    public var focusedName: String?
    public var isIdle: Bool
    public var isLocked: Bool
    public var idleThreshold: Double
    public var updatedAt: Date

    public init(
        sessionID: Int64, pid: Int32, display: String, focusedID: String?, focusedName: String?,
        isIdle: Bool, isLocked: Bool, idleThreshold: Double, updatedAt: Date
    ) {
        self.sessionID = sessionID
        self.pid = pid
        self.display = display
        self.focusedID = focusedID
        self.focusedName = focusedName
        self.isIdle = isIdle
        self.isLocked = isLocked
        self.idleThreshold = idleThreshold
        self.updatedAt = updatedAt
    }
}
