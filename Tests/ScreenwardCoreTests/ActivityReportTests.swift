import DeviceActivity
import Foundation
import GRDB
@_spi(Screenward) import ManagedSettings
import SessionHarness
import XCTest

@testable import ScreenwardCore

/// Reports: segments on the calendar (across daylight saving), sums equal to the
/// ledger's, pickups, first pickup and the longest activity.
final class ActivityReportTests: XCTestCase {
    let berlin = TimeZone(identifier: "Europe/Berlin")!
    var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = berlin
        return calendar
    }

    func date(_ text: String) -> Date {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)!
    }

    func day(_ year: Int, _ month: Int, _ day: Int) -> Date {
        calendar.date(from: DateComponents(year: year, month: month, day: day))!
    }

    // MARK: Segments

    func testTheDaysOfDaylightSavingHave23And25Hours() throws {
        let spring = try ReportSegments.boundaries(
            of: .hourly, from: day(2026, 3, 29), to: day(2026, 3, 30), calendar: calendar)
        XCTAssertEqual(spring.count, 23)
        XCTAssertTrue(spring.allSatisfy { $0.duration == 3600 })
        let autumn = try ReportSegments.boundaries(
            of: .hourly, from: day(2026, 10, 25), to: day(2026, 10, 26), calendar: calendar)
        XCTAssertEqual(autumn.count, 25)
        XCTAssertTrue(autumn.allSatisfy { $0.duration == 3600 })

        let days = try ReportSegments.boundaries(
            of: .daily, from: day(2026, 3, 28), to: day(2026, 3, 31), calendar: calendar)
        XCTAssertEqual(days.map(\.duration), [24 * 3600, 23 * 3600, 24 * 3600])
        let autumnDays = try ReportSegments.boundaries(
            of: .daily, from: day(2026, 10, 24), to: day(2026, 10, 27), calendar: calendar)
        XCTAssertEqual(autumnDays.map(\.duration), [24 * 3600, 25 * 3600, 24 * 3600])
        // Each starts at local midnight.
        for segment in days + autumnDays {
            let parts = calendar.dateComponents([.hour, .minute], from: segment.start)
            XCTAssertEqual(parts.hour, 0)
            XCTAssertEqual(parts.minute, 0)
        }
    }

    func testWeeksStartOnMondayAndSegmentsAreClippedToTheRange() throws {
        // Wednesday 2026-11-18 12:00 to Wednesday 2026-12-02 06:00.
        let start = day(2026, 11, 18).addingTimeInterval(12 * 3600)
        let end = day(2026, 12, 2).addingTimeInterval(6 * 3600)
        let weeks = try ReportSegments.boundaries(of: .weekly, from: start, to: end, calendar: calendar)
        XCTAssertEqual(weeks.map(\.start), [start, day(2026, 11, 23), day(2026, 11, 30)])
        XCTAssertEqual(weeks.map(\.end), [day(2026, 11, 23), day(2026, 11, 30), end])
        XCTAssertEqual(calendar.component(.weekday, from: weeks[1].start), 2)  // Monday
        XCTAssertThrowsError(
            try ReportSegments.boundaries(
                of: .hourly, from: start, to: start.addingTimeInterval(3 * 365 * 86400), calendar: calendar))
    }

    // MARK: Sums

    func testSegmentsAddUpToTheLedgersTotalsAcrossBothChangesOfDaylightSaving() throws {
        let world = try LedgerWorld()
        var generator = SplitMix(seed: 2026)
        // Six weeks of use with both changes of daylight saving in them, some of it
        // crossing midnight and the doubled hour.
        for (from, to) in [(day(2026, 3, 20), day(2026, 4, 5)), (day(2026, 10, 18), day(2026, 11, 2))] {
            var cursor = from
            while cursor < to {
                let length = Double(generator.next() % 5_400) + 0.25
                try world.record(
                    ["game", "editor", "chat", "browser"][Int(generator.next() % 4)], from: cursor, seconds: length,
                    reason: .focusChange)
                cursor = cursor.addingTimeInterval(length + Double(generator.next() % 1_800))
            }
        }
        for (from, to) in [
            (day(2026, 3, 20), day(2026, 4, 5)), (day(2026, 10, 18), day(2026, 11, 2)),
            (date("2026-03-29T00:30:00Z"), date("2026-10-25T01:30:00Z")),
        ] {
            let ledgerTotals = try world.ledger.usage(since: from, until: to, liveSessionID: nil, now: to)
            for segmentation in ActivityReport.Segmentation.allCases {
                let report = try world.report(segmentation, from, to)
                XCTAssertEqual(report.segments.first?.start, from)
                XCTAssertEqual(report.segments.last?.end, to)
                XCTAssertEqual(report.totalSeconds, ledgerTotals.totalSeconds, accuracy: 1e-6, "\(segmentation)")
                for app in ledgerTotals.apps {
                    let fromSegments = report.segments.flatMap(\.applications).filter { $0.application == app.id }
                        .reduce(0) { $0 + $1.seconds }
                    XCTAssertEqual(fromSegments, app.seconds, accuracy: 1e-6, "\(segmentation) \(app.id)")
                }
                for segment in report.segments {
                    XCTAssertEqual(
                        segment.totalSeconds, segment.applications.reduce(0) { $0 + $1.seconds }, accuracy: 1e-9)
                    XCTAssertLessThanOrEqual(segment.totalSeconds, segment.end.timeIntervalSince(segment.start) + 1e-6)
                }
            }
        }
    }

    func testUseInTheDoubledHourIsCountedOnceInEachOfItsHours() throws {
        let world = try LedgerWorld()
        // 02:30 CEST (00:30Z) for an hour: to 02:30 CET (01:30Z).
        try world.record("game", from: date("2026-10-25T00:30:00Z"), seconds: 3600, reason: .idle)
        let report = try world.report(.hourly, day(2026, 10, 25), day(2026, 10, 26))
        let used = report.segments.filter { $0.totalSeconds > 0 }
        XCTAssertEqual(used.map(\.totalSeconds), [1800, 1800])
        XCTAssertEqual(used.map { calendar.component(.hour, from: $0.start) }, [2, 2])
        XCTAssertEqual(used[1].start.timeIntervalSince(used[0].start), 3600)
    }

    // MARK: Pickups and the longest activity

    func testPickupsFirstPickupAndTheLongestActivity() throws {
        let world = try LedgerWorld()
        let morning = day(2026, 11, 23).addingTimeInterval(9 * 3600)
        // Pickup 1: the editor, then the chat on a change of focus, until idle.
        try world.record("editor", from: morning, seconds: 600, reason: .focusChange)
        try world.record("chat", from: morning.addingTimeInterval(600.5), seconds: 300, reason: .idle)
        // Pickup 2: after idleness, the game; then the editor 30 s after a focus change.
        try world.record("game", from: morning.addingTimeInterval(1500), seconds: 120, reason: .focusChange)
        try world.record("editor", from: morning.addingTimeInterval(1650), seconds: 60, reason: .focusChange)
        // Pickup 3: more than a minute without use, whatever the reason.
        try world.record("chat", from: morning.addingTimeInterval(1800), seconds: 30, reason: .locked)
        // Pickup 4: after a lock.
        try world.record("chat", from: morning.addingTimeInterval(7200), seconds: 10, reason: .agentStopped)

        let report = try world.report(.daily, day(2026, 11, 23), day(2026, 11, 24))
        let segment = try XCTUnwrap(report.segments.first)
        XCTAssertEqual(segment.pickups, 4)
        XCTAssertEqual(segment.firstPickup, morning)
        XCTAssertEqual(segment.longestActivity, DateInterval(start: morning, end: morning.addingTimeInterval(900.5)))
        let pickups = Dictionary(uniqueKeysWithValues: segment.applications.map { ($0.application, $0.pickups) })
        XCTAssertEqual(pickups, ["editor": 1, "chat": 2, "game": 1])

        // Only the game's category: its pickup, and its stretch with the editor's gap left out.
        let games = try world.report(
            .daily, day(2026, 11, 23), day(2026, 11, 24), filter: ActivityReportFilter(categories: ["Game"]))
        XCTAssertEqual(games.segments.first?.pickups, 1)
        XCTAssertEqual(games.segments.first?.totalSeconds, 120)
        XCTAssertEqual(games.applications.map(\.id), ["game"])
        XCTAssertEqual(games.segments.first?.longestActivity?.duration, 120)
        // Applications by id: the editor and the chat.
        let named = try world.report(
            .daily, day(2026, 11, 23), day(2026, 11, 24),
            filter: ActivityReportFilter(applications: ["editor", "chat"]))
        XCTAssertEqual(named.totalSeconds, 600 + 300 + 60 + 30 + 10)
    }

    func testAPickupBeforeTheRangeIsNotCountedButItsUseIsClipped() throws {
        let world = try LedgerWorld()
        let midnight = day(2026, 11, 23)
        try world.record("game", from: midnight.addingTimeInterval(-600), seconds: 1200, reason: .focusChange)
        try world.record("chat", from: midnight.addingTimeInterval(600), seconds: 60, reason: .idle)
        let report = try world.report(.hourly, midnight, midnight.addingTimeInterval(7200))
        XCTAssertEqual(report.segments.map(\.totalSeconds), [660, 0])
        XCTAssertEqual(report.segments[0].pickups, 0)
        XCTAssertNil(report.segments[0].firstPickup)
        // The stretch began before midnight: within the hour it is midnight to 00:11.
        XCTAssertEqual(
            report.segments[0].longestActivity, DateInterval(start: midnight, end: midnight.addingTimeInterval(660)))
        XCTAssertNil(report.segments[1].longestActivity)
    }

    func testTheLiveSessionsOpenIntervalCountsUpToNow() throws {
        let world = try LedgerWorld()
        let start = day(2026, 11, 23).addingTimeInterval(3600)
        let id = try world.ledger.openInterval(
            sessionID: world.session, app: AppIdentity(key: .windowClass("game"), displayName: "Game"),
            token: .init(opaqueValue: "token-open"), startingAt: start)
        try world.ledger.checkpointInterval(id, duration: .seconds(10))
        let now = start.addingTimeInterval(25)
        let live = try world.ledger.activityReport(
            .daily, range: DateInterval(start: day(2026, 11, 23), end: now), calendar: calendar,
            categories: world.categories,
            liveSessionID: world.session, now: now)
        XCTAssertEqual(live.totalSeconds, 25, accuracy: 1e-6)
        let dead = try world.ledger.activityReport(
            .daily, range: DateInterval(start: day(2026, 11, 23), end: now), calendar: calendar,
            categories: world.categories,
            liveSessionID: nil, now: now)
        XCTAssertEqual(dead.totalSeconds, 10, accuracy: 1e-6)
    }

    /// A ledger with four applications in four categories, and use written as rows.
    final class LedgerWorld {
        let ledger: Ledger
        let session: Int64
        let categories: CategoryTable

        init() throws {
            ledger = try Ledger()
            session = try ledger.beginAgentSession(pid: 1, display: ":1", at: Date(timeIntervalSince1970: 0)).sessionID
            categories = try DataDirectory.categoryTable()
            try ledger.database.write { db in
                for (id, entryCategories) in [
                    ("game", "Game"), ("editor", "Development"), ("chat", "Network;InstantMessaging"),
                    ("browser", "Network;WebBrowser"),
                ] {
                    try db.execute(
                        sql:
                            """
                            INSERT INTO application (token, publicID, displayName, categories, firstSeen, \
                            lastSeen) VALUES (?, ?, ?, ?, 0, 0)
                            """,
                        arguments: ["token-\(id)", id, id.capitalized, entryCategories])
                }
            }
        }

        func record(_ app: String, from start: Date, seconds: Double, reason: IntervalEndReason) throws {
            try ledger.database.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO usageInterval (token, sessionID, startedAt, endedAt, duration, isOpen, endReason)
                        VALUES (?, ?, ?, ?, ?, 0, ?)
                        """,
                    arguments: [
                        "token-\(app)", session, start.timeIntervalSince1970, start.timeIntervalSince1970 + seconds,
                        seconds, reason.rawValue,
                    ])
            }
        }

        func report(
            _ segmentation: ActivityReport.Segmentation, _ from: Date, _ to: Date,
            filter: ActivityReportFilter = .init()
        ) throws -> ActivityReport {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "Europe/Berlin")!
            return try ledger.activityReport(
                segmentation, range: DateInterval(start: from, end: to), calendar: calendar, filter: filter,
                categories: categories,
                liveSessionID: nil, now: to)
        }
    }
}

/// Websites in reports: each segment's websites (part of their browser's time), the built-in
/// report's table of them, and what an app's report extension is given.
final class WebsiteReportTests: XCTestCase {
    func testSegmentsCarryTheirWebsitesAndTheBuiltInReportListsThem() throws {
        let world = try ActivityReportTests.LedgerWorld()
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Berlin")!
        let day = calendar.date(from: DateComponents(year: 2026, month: 11, day: 23))!
        let browser = AppIdentity(key: .windowClass("browser"), displayName: "Browser")
        func use(_ site: Website?, from offset: TimeInterval, seconds: Double) throws {
            let id = try world.ledger.openInterval(
                sessionID: world.session, app: browser, token: .init(opaqueValue: "token-browser"), site: site,
                startingAt: day.addingTimeInterval(offset))
            try world.ledger.closeInterval(id, duration: .seconds(seconds), reason: .siteChange)
        }
        // 08:59:30 to 09:00:30 on YouTube (across an hour), then Wikipedia, then a page of no website.
        try use(Website(domain: "youtube.com", host: "www.youtube.com"), from: 9 * 3600 - 30, seconds: 60)
        try use(Website(domain: "wikipedia.org", host: "en.wikipedia.org"), from: 9 * 3600 + 30, seconds: 20)
        try use(nil, from: 9 * 3600 + 50, seconds: 10)
        let report = try world.report(.hourly, day, day.addingTimeInterval(86_400))
        XCTAssertEqual(report.totalSeconds, 90, accuracy: 1e-6, "the browser's time is all of it")
        XCTAssertEqual(report.secondsByWebsite.map(\.domain), ["youtube.com", "wikipedia.org"])
        XCTAssertEqual(report.secondsByWebsite.map(\.seconds), [60, 20])
        let eight = try XCTUnwrap(report.segments.first { calendar.component(.hour, from: $0.start) == 8 })
        XCTAssertEqual(eight.websites, [.init(domain: "youtube.com", seconds: 30)])
        let nine = try XCTUnwrap(report.segments.first { calendar.component(.hour, from: $0.start) == 9 })
        XCTAssertEqual(
            nine.websites, [.init(domain: "youtube.com", seconds: 30), .init(domain: "wikipedia.org", seconds: 20)])

        let view = BuiltInReport(report: report, categories: world.categories, language: "en").view
        let text = String(describing: view)
        XCTAssertTrue(text.contains("Websites") && text.contains("youtube.com") && text.contains("Entertainment"), text)
        // A report's JSON from before websites still reads.
        let old = #"{"start":0,"end":3600,"totalSeconds":5,"pickups":1,"applications":[]}"#
        XCTAssertEqual(try JSONDecoder().decode(ActivityReport.Segment.self, from: Data(old.utf8)).websites, [])
        // Without websites, no table of them.
        let plain = BuiltInReport(
            report: try world.report(.hourly, day.addingTimeInterval(-86_400), day), categories: world.categories,
            language: "en")
        XCTAssertFalse(String(describing: plain.view).contains("Websites"))
    }
}

extension WebsiteReportTests {
    /// A report extension gets web-domain activity as Apple's does: in its category, with the
    /// app's own token and the name.
    func testAReportExtensionIsGivenTheWebsitesInTheirCategories() throws {
        let world = try ActivityReportTests.LedgerWorld()
        let calendar = Calendar(identifier: .gregorian)
        let start = Date().addingTimeInterval(-600)
        let browser = AppIdentity(key: .windowClass("browser"), displayName: "Browser")
        let id = try world.ledger.openInterval(
            sessionID: world.session, app: browser, token: .init(opaqueValue: "token-browser"),
            site: Website(domain: "youtube.com", host: "m.youtube.com"),
            startingAt: start)
        try world.ledger.closeInterval(id, duration: .seconds(42), reason: .siteChange)
        _ = try world.ledger.authorize(client: "org.example.reports", member: "individual", grantKey: "k", at: start)
        let minter = TokenMinter(secret: DeviceSecret(bytes: Array(repeating: 5, count: 32)))
        let directory = ItemDirectory(
            minter: minter, catalog: ApplicationCatalog(entries: []), categories: world.categories)
        let data = try AppReportData(
            ledger: world.ledger, directory: directory, calendar: calendar, liveSessionID: nil,
            user: .init(name: "sam", role: .individual), language: "en"
        ).data(
            for: "org.example.reports",
            filter: DeviceActivityFilter(
                segment: .daily(during: DateInterval(start: start.addingTimeInterval(-60), end: Date()))), now: Date())
        let categories = data.flatMap(\.activitySegments.elements).flatMap(\.categories.elements)
        let entertainment = try XCTUnwrap(categories.first { $0.category.localizedDisplayName == "Entertainment" })
        let website = try XCTUnwrap(entertainment.webDomains.elements.first)
        XCTAssertEqual(website.webDomain.domain, "youtube.com")
        XCTAssertEqual(website.totalActivityDuration, 42, accuracy: 1e-6)
        XCTAssertNotNil(website.webDomain.token, "the app's own token")
        XCTAssertEqual(entertainment.totalActivityDuration, 0, "a website's time is its browser's")
        XCTAssertEqual(
            try world.ledger.labels(kind: .webDomain).values.sorted(), ["youtube.com"],
            "the token was issued to the app")
    }

    /// A report filter naming websites (`DeviceActivityFilter.webDomains`, the app's own tokens):
    /// their time in any browser, and nothing else; with an application named too, both.
    func testAReportFilterNamingWebsitesGivesTheirTimeOnly() throws {
        let world = try ActivityReportTests.LedgerWorld()
        let calendar = Calendar(identifier: .gregorian)
        let start = Date().addingTimeInterval(-600)
        let browser = AppIdentity(key: .windowClass("browser"), displayName: "Browser")
        let editor = AppIdentity(key: .windowClass("editor"), displayName: "Editor")
        var at = start
        func use(_ app: AppIdentity, _ site: Website?, seconds: Double) throws {
            let id = try world.ledger.openInterval(
                sessionID: world.session, app: app, token: .init(opaqueValue: "token-\(app.displayName)"), site: site,
                startingAt: at)
            try world.ledger.closeInterval(id, duration: .seconds(seconds), reason: .siteChange)
            at = at.addingTimeInterval(seconds)
        }
        try use(browser, Website(domain: "youtube.com", host: "m.youtube.com"), seconds: 42)
        try use(browser, Website(domain: "wikipedia.org", host: "en.wikipedia.org"), seconds: 20)
        try use(editor, nil, seconds: 30)
        _ = try world.ledger.authorize(client: "org.example.reports", member: "individual", grantKey: "k", at: start)
        let minter = TokenMinter(secret: DeviceSecret(bytes: Array(repeating: 5, count: 32)))
        let directory = ItemDirectory(
            minter: minter, catalog: ApplicationCatalog(entries: []), categories: world.categories)
        let reports = AppReportData(
            ledger: world.ledger, directory: directory, calendar: calendar, liveSessionID: nil,
            user: .init(name: "sam", role: .individual), language: "en")
        let range = DeviceActivityFilter.SegmentInterval.daily(
            during: DateInterval(start: start.addingTimeInterval(-60), end: Date()))
        func segments(_ filter: DeviceActivityFilter) throws -> [DeviceActivityData.ActivitySegment] {
            try reports.data(for: "org.example.reports", filter: filter, now: Date()).flatMap(
                \.activitySegments.elements)
        }
        // The app's own tokens, from an unfiltered report.
        let everything = try segments(DeviceActivityFilter(segment: range))
        XCTAssertEqual(everything.reduce(0) { $0 + $1.totalActivityDuration }, 92, accuracy: 1e-6)
        let websites = everything.flatMap(\.categories.elements).flatMap(\.webDomains.elements)
        let youtube = try XCTUnwrap(websites.first { $0.webDomain.domain == "youtube.com" }?.webDomain.token)
        let editorToken = try XCTUnwrap(
            everything.flatMap(\.categories.elements).flatMap(\.applications.elements).first {
                $0.application.localizedDisplayName == "Editor"
            }?.application.token)

        let onlyYouTube = try segments(DeviceActivityFilter(segment: range, webDomains: [youtube]))
        XCTAssertEqual(onlyYouTube.reduce(0) { $0 + $1.totalActivityDuration }, 42, accuracy: 1e-6)
        let categories = onlyYouTube.flatMap(\.categories.elements)
        XCTAssertEqual(categories.flatMap(\.webDomains.elements).map(\.webDomain.domain), ["youtube.com"])
        XCTAssertEqual(categories.flatMap(\.applications.elements).count, 0, "no application's time")

        let both = try segments(
            DeviceActivityFilter(segment: range, applications: [editorToken], webDomains: [youtube]))
        XCTAssertEqual(both.reduce(0) { $0 + $1.totalActivityDuration }, 72, accuracy: 1e-6)
        XCTAssertEqual(
            both.flatMap(\.categories.elements).flatMap(\.applications.elements).map(
                \.application.localizedDisplayName), ["Editor"])
        // A stored filter from before websites still reads.
        XCTAssertEqual(
            try JSONDecoder().decode(
                ActivityReportFilter.self, from: Data(#"{"applications":[],"categories":["Game"]}"#.utf8)),
            ActivityReportFilter(categories: ["Game"]))
    }
}
