import Foundation
import GRDB
import ScreenwardBasics
import UsageLedger

extension Ledger {
    /// The use recorded from `since` to `until`, sorted by start, with the use just
    /// before `since` that decides whether the first in range is a pickup. As in
    /// `usage(since:until:)`, the open interval of the live session (`liveSessionID`)
    /// counts up to `now`, and a dead session's up to its last checkpoint.
    public func recordedUse(since: Date, until: Date, liveSessionID: Int64?, now: Date) throws -> [RecordedUse] {
        try database.read { db in
            // The longest interval bounds how long before `since` an interval reaching into
            // the range can start; the live one may have grown since its last checkpoint.
            let longest = try Double.fetchOne(db, sql: "SELECT MAX(duration) FROM usageInterval") ?? 0
            let growth =
                try liveSessionID.map { id in
                    try Double.fetchOne(
                        db, sql: "SELECT MAX(0, :now - endedAt) FROM usageInterval WHERE isOpen AND sessionID = :live",
                        arguments: ["now": now.timeIntervalSince1970, "live": id]) ?? 0
                } ?? 0
            let reach = longest + growth
            // Twice the reach, and the pickup gap: the use before the first in range.
            let earliest = since.timeIntervalSince1970 - 2 * reach - ActivityReportBuilder.pickupGap - 1
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT token, startedAt,
                           CASE WHEN isOpen AND sessionID IS :live THEN MAX(endedAt, :now) ELSE endedAt END AS endedAt,
                           endReason, webDomain
                    FROM usageInterval
                    WHERE startedAt >= :earliest AND startedAt < :until
                    ORDER BY startedAt, id
                    """,
                arguments: [
                    "live": liveSessionID, "now": now.timeIntervalSince1970, "earliest": earliest,
                    "until": until.timeIntervalSince1970,
                ])
            var uses: [RecordedUse] = []
            while let row = try rows.next() {
                let reason: String? = row["endReason"]
                uses.append(
                    RecordedUse(
                        token: row["token"], start: Date(timeIntervalSince1970: row["startedAt"]),
                        end: Date(timeIntervalSince1970: row["endedAt"]),
                        endReason: reason.flatMap(IntervalEndReason.init(rawValue:)),
                        webDomain: row["webDomain"]))
            }
            return uses
        }
    }

    /// Every application the ledger knows, by token, as a report shows it.
    public func reportApplications(categories: CategoryTable) throws -> [String: ActivityReport.Application] {
        try database.read { db in
            var applications: [String: ActivityReport.Application] = [:]
            for row in try Row.fetchAll(
                db, sql: "SELECT token, publicID, displayName, iconName, categories FROM application")
            {
                let publicID: String = row["publicID"]
                let stored: String = row["categories"]
                let isDesktopID = !publicID.hasPrefix("wmclass:") && !publicID.hasPrefix("exe:")
                let category = categories.category(
                    desktopID: isDesktopID ? publicID : nil,
                    entryCategories: stored.split(separator: ";").map(String.init))
                let token: String = row["token"]
                applications[token] = ActivityReport.Application(
                    id: publicID, name: row["displayName"], token: token, iconName: row["iconName"], category: category)
            }
            return applications
        }
    }

    /// The report of `range` cut into `segmentation`'s segments of `calendar`.
    public func activityReport(
        _ segmentation: ActivityReport.Segmentation, range: DateInterval, calendar: Calendar,
        filter: ActivityReportFilter = .init(),
        categories: CategoryTable, liveSessionID: Int64?, now: Date
    ) throws -> ActivityReport {
        let uses = try recordedUse(since: range.start, until: range.end, liveSessionID: liveSessionID, now: now)
        let builder = ActivityReportBuilder(
            segmentation: segmentation, range: range, calendar: calendar, filter: filter)
        return try builder.build(
            uses: uses, applications: try reportApplications(categories: categories), lastUpdated: min(now, range.end))
    }
}
