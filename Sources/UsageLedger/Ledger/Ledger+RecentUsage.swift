import Foundation
import GRDB
@_spi(Screenward) import ManagedSettings

/// The focus intervals recorded since some date, with what is known of each
/// application they name: what `LiveUsage` starts from when the agent starts.
public struct RecentUsage: Sendable, Equatable {
    public struct Interval: Sendable, Equatable {
        public var token: ApplicationToken
        public var startedAt: Date
        /// Monotonic seconds: the interval covers `[startedAt, startedAt + duration)`.
        /// An open one's duration is its last checkpoint.
        public var duration: TimeInterval
        /// Still open in the ledger: the running agent's, or one a dead agent left
        /// (closed at its checkpoint when the next agent run begins).
        public var isOpen: Bool
        /// The website (registrable domain) the interval was on, if any.
        public var webDomain: String?

        public init(
            token: ApplicationToken, startedAt: Date, duration: TimeInterval, isOpen: Bool, webDomain: String? = nil
        ) {
            self.token = token
            self.startedAt = startedAt
            self.duration = duration
            self.isOpen = isOpen
            self.webDomain = webDomain
        }
    }

    /// In order of start.
    public var intervals: [Interval]
    /// Every application the intervals name.
    public var applications: [ApplicationFacts]
}

extension Ledger {
    /// Every interval that ends after `since` (so one that started before it and
    /// reaches into it is there whole), and the applications they name.
    ///
    /// Read once at start: the scan of `usageInterval` it needs (there is no index
    /// on `endedAt`) does not matter then.
    public func recentUsage(since: Date) throws -> RecentUsage {
        try database.read { db in
            let cutoff = since.timeIntervalSince1970
            let intervals = try Row.fetchAll(
                db,
                sql:
                    """
                    SELECT token, startedAt, duration, isOpen, webDomain FROM usageInterval WHERE endedAt > ? \
                    ORDER BY startedAt, id
                    """,
                arguments: [cutoff]
            ).map { row in
                RecentUsage.Interval(
                    token: ApplicationToken(opaqueValue: row["token"]),
                    startedAt: Date(timeIntervalSince1970: row["startedAt"]), duration: row["duration"],
                    isOpen: row["isOpen"], webDomain: row["webDomain"])
            }
            let applications = try Row.fetchAll(
                db,
                sql: """
                    SELECT token, publicID, categories FROM application
                    WHERE token IN (SELECT token FROM usageInterval WHERE endedAt > ?)
                    ORDER BY token
                    """,
                arguments: [cutoff]
            ).map { row in
                ApplicationFacts(
                    token: ApplicationToken(opaqueValue: row["token"]), publicID: row["publicID"],
                    storedCategories: row["categories"])
            }
            return RecentUsage(intervals: intervals, applications: applications)
        }
    }
}
