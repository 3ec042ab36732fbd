import DeviceActivity
import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardBasics
import ScreenwardIPC
import UsageLedger

/// The data an app's report extension is given: the person's report for the app's
/// filter, with the app's own tokens (issued and recorded as the picker's are, so the
/// app may use them) and the names people read.
public struct AppReportData: Sendable {
    public var ledger: Ledger
    public var directory: ItemDirectory
    public var calendar: Calendar
    public var liveSessionID: Int64?
    public var user: DeviceActivityData.User
    public var language: String

    public init(
        ledger: Ledger, directory: ItemDirectory, calendar: Calendar, liveSessionID: Int64?,
        user: DeviceActivityData.User, language: String
    ) {
        self.ledger = ledger
        self.directory = directory
        self.calendar = calendar
        self.liveSessionID = liveSessionID
        self.user = user
        self.language = language
    }

    public func data(for app: String, filter: DeviceActivityFilter, now: Date) throws -> [DeviceActivityData] {
        guard let grant = try ledger.grant(for: app) else {
            // swift-format-ignore
            throw ServiceError(
                .unauthorized,
                Phrase("{app} is not authorised: its report extension is given usage only once the app is (AuthorizationCenter.shared.requestAuthorization)", context: "service", ["app": app]))
        }
        let tokens = ClientTokens(grant: grant, ledger: ledger)
        let applications = try ledger.reportApplications(categories: directory.categories)
        let included = ActivityReportFilter(
            applications: Set(
                try tokens.toDevice(filter.applications, .application).compactMap { applications[$0.opaqueValue]?.id }),
            categories: Set(try categoryIDs(tokens.toDevice(filter.categories, .category))),
            websites: Set(try websiteNames(tokens.toDevice(filter.webDomains, .webDomain))))
        guard
            filter.applications.isEmpty && filter.categories.isEmpty && filter.webDomains.isEmpty
                || !included.includesEverything
        else {
            // Every token named was valid, but none names an application seen in use: nothing is included.
            return [try convert(emptyReport(filter, now: now), tokens: tokens, filter: filter)]
        }
        let segmentation = ActivityReport.Segmentation(filter.segmentInterval)
        let report = try ledger.activityReport(
            segmentation, range: filter.segmentInterval.interval, calendar: calendar, filter: included,
            categories: directory.categories,
            liveSessionID: liveSessionID, now: now)
        return [try convert(report, tokens: tokens, filter: filter)]
    }

    /// The websites the device's tokens were issued for (a token names the name it was issued
    /// for; one for a host names its registrable domain's time only when issued for it).
    private func websiteNames(_ deviceTokens: Set<WebDomainToken>) throws -> [String] {
        let names = try ledger.labels(kind: .webDomain)
        return deviceTokens.compactMap { names[$0.opaqueValue] }
    }

    private func categoryIDs(_ deviceTokens: Set<ActivityCategoryToken>) -> [String] {
        let byToken = Dictionary(
            directory.categoryTokensByID().map { ($0.value.opaqueValue, $0.key) },
            uniquingKeysWith: { first, _ in first })
        return deviceTokens.compactMap { byToken[$0.opaqueValue] }
    }

    private func emptyReport(_ filter: DeviceActivityFilter, now: Date) throws -> ActivityReport {
        let interval = filter.segmentInterval.interval
        let segmentation = ActivityReport.Segmentation(filter.segmentInterval)
        let bounds = try ReportSegments.boundaries(
            of: segmentation, from: interval.start, to: interval.end, calendar: calendar)
        return ActivityReport(
            segmentation: segmentation, since: interval.start, until: interval.end,
            timeZone: calendar.timeZone.identifier,
            lastUpdated: min(now, interval.end), applications: [],
            segments: bounds.map {
                .init(
                    start: $0.start, end: $0.end, totalSeconds: 0, pickups: 0, firstPickup: nil, longestActivity: nil,
                    applications: [])
            })
    }

    /// The report with the app's tokens and the names.
    private func convert(_ report: ActivityReport, tokens: ClientTokens, filter: DeviceActivityFilter) throws
        -> DeviceActivityData
    {
        var issued: [IssuedToken] = []
        var applicationTokens: [String: ApplicationToken] = [:]
        for app in report.applications {
            let token = tokens.issue(.application, deviceToken: app.token, label: app.id)
            issued.append(token)
            applicationTokens[app.id] = ApplicationToken(opaqueValue: token.token)
        }
        // Websites, in the category the table gives them (Other when it gives none).
        var websiteTokens: [String: WebDomainToken] = [:]
        var websiteCategory: [String: String] = [:]
        for (domain, _) in report.secondsByWebsite {
            let token = tokens.issue(
                .webDomain, deviceToken: directory.minter.webDomainToken(forDomain: domain).opaqueValue, label: domain)
            issued.append(token)
            websiteTokens[domain] = WebDomainToken(opaqueValue: token.token)
            websiteCategory[domain] = directory.categories.category(ofWebsite: domain) ?? CategoryTable.other
        }
        var categoryTokens: [String: ActivityCategoryToken] = [:]
        let deviceCategoryTokens = directory.categoryTokensByID()
        for category in Set(report.applications.map(\.category)).union(websiteCategory.values) {
            guard let device = deviceCategoryTokens[category] else { continue }
            let token = tokens.issue(.category, deviceToken: device.opaqueValue, label: category)
            issued.append(token)
            categoryTokens[category] = ActivityCategoryToken(opaqueValue: token.token)
        }
        try ledger.recordIssuedTokens(issued, client: tokens.grant.client)

        let segments = report.segments.map { segment in
            var byCategory: [String: [DeviceActivityData.ApplicationActivity]] = [:]
            for use in segment.applications {
                guard let app = report.application(use.application) else { continue }
                let category = ActivityCategory(
                    token: categoryTokens[app.category], localizedDisplayName: categoryName(app.category))
                byCategory[app.category, default: []].append(
                    DeviceActivityData.ApplicationActivity(
                        application: Application(
                            token: applicationTokens[app.id], bundleIdentifier: app.id, localizedDisplayName: app.name),
                        category: category, totalActivityDuration: use.seconds, numberOfPickups: use.pickups,
                        numberOfNotifications: 0))
            }
            var websitesByCategory: [String: [DeviceActivityData.WebDomainActivity]] = [:]
            for use in segment.websites {
                var domain = WebDomain(token: websiteTokens[use.domain] ?? WebDomainToken(opaqueValue: "unknown"))
                domain.domain = HostName.readable(use.domain)
                websitesByCategory[websiteCategory[use.domain] ?? CategoryTable.other, default: []].append(
                    DeviceActivityData.WebDomainActivity(webDomain: domain, totalActivityDuration: use.seconds))
            }
            // A website's time is part of its browser's: a category's total is its applications'.
            let ids: [String] = Set(byCategory.keys).union(websitesByCategory.keys).sorted()
            var categories: [(id: String, activity: DeviceActivityData.CategoryActivity)] = []
            for id in ids {
                let apps = byCategory[id] ?? []
                let total: TimeInterval = apps.reduce(0) { $0 + $1.totalActivityDuration }
                categories.append(
                    (
                        id,
                        DeviceActivityData.CategoryActivity(
                            category: ActivityCategory(
                                token: categoryTokens[id], localizedDisplayName: categoryName(id)),
                            totalActivityDuration: total,
                            applications: DeviceActivityResults(apps),
                            webDomains: DeviceActivityResults(websitesByCategory[id] ?? []))
                    ))
            }
            // Most used first, then by id.
            categories.sort { ($1.activity.totalActivityDuration, $0.id) < ($0.activity.totalActivityDuration, $1.id) }
            return DeviceActivityData.ActivitySegment(
                dateInterval: DateInterval(start: segment.start, end: segment.end),
                totalActivityDuration: segment.totalSeconds,
                longestActivity: segment.longestActivity, firstPickup: segment.firstPickup,
                totalPickups: segment.pickups,
                totalPickupsWithoutApplicationActivity: 0, categories: DeviceActivityResults(categories.map(\.activity))
            )
        }
        return DeviceActivityData(
            user: user, device: DeviceActivityData.Device(name: ProcessInfo.processInfo.hostName),
            lastUpdatedDate: report.lastUpdated,
            segmentInterval: filter.segmentInterval, activitySegments: DeviceActivityResults(segments))
    }

    private func categoryName(_ id: String) -> String { directory.categories.displayName(of: id, language: language) }
}

extension ActivityReport.Segmentation {
    /// The segments an app's filter asks for.
    init(_ interval: DeviceActivityFilter.SegmentInterval) {
        switch interval {
        case .hourly: self = .hourly
        case .daily: self = .daily
        case .weekly: self = .weekly
        }
    }
}
