import DeviceActivity
import Foundation
@_spi(Screenward) import ManagedSettings
import TestSupport
import XCTest

@testable import ScreenwardCore

/// Events with web domains (`DeviceActivityEvent(webDomains:)`): a website's time in any
/// browser, counted once when the event also has the browser.
final class LiveWebsiteUsageTests: XCTestCase {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    let chromium = AppIdentity(key: .desktopEntry("chromium.desktop"), displayName: "Chromium")
    let firefox = AppIdentity(key: .desktopEntry("firefox-esr.desktop"), displayName: "Firefox")
    let chromiumApp = ApplicationToken(opaqueValue: "chromium")
    let firefoxApp = ApplicationToken(opaqueValue: "firefox")
    let video = Website(domain: "videos.test", host: "m.videos.test")
    let wiki = Website(domain: "wiki.test", host: "en.wiki.test")
    let videoToken = WebDomainToken(opaqueValue: "web-videos.test")

    func liveUsage() -> LiveUsage {
        LiveUsage(
            forwardingTo: RecordingSink(), categories: .none,
            websites: WebsiteTokens { WebDomainToken(opaqueValue: "web-\($0)") })
    }

    func at(_ seconds: TimeInterval) -> Date { t0.addingTimeInterval(seconds) }

    func focus(
        _ live: LiveUsage, _ identity: AppIdentity, _ token: ApplicationToken, _ site: Website?, _ start: TimeInterval,
        _ end: TimeInterval
    ) throws {
        let id = try live.intervalOpened(app: identity, token: token, site: site, at: at(start))
        try live.intervalClosed(id, duration: .seconds(end - start), reason: .focusChange)
    }

    func testAWebsitesTimeIsCountedInEveryBrowserAndOnlyThere() throws {
        let live = liveUsage()
        try focus(live, chromium, chromiumApp, video, 0, 10)
        try focus(live, chromium, chromiumApp, wiki, 10, 15)
        try focus(live, firefox, firefoxApp, video, 15, 18)
        try focus(live, firefox, firefoxApp, nil, 18, 20)
        let videos = DeviceActivityEvent(webDomains: [videoToken], threshold: DateComponents(minute: 1))
        XCTAssertEqual(live.focusedSeconds(of: videos, from: at(0), to: at(100)), 13, accuracy: 1e-9)
        XCTAssertEqual(
            live.focusedSeconds(of: videos, from: at(5), to: at(16)), 6, accuracy: 1e-9, "clipped to the window")
        // The event's browser already holds the website's time in it: counted once.
        let both = DeviceActivityEvent(
            applications: [chromiumApp], webDomains: [videoToken], threshold: DateComponents(minute: 1))
        XCTAssertEqual(live.focusedSeconds(of: both, from: at(0), to: at(100)), 15 + 3, accuracy: 1e-9)
        // The engine's way in says the same.
        XCTAssertEqual(live.usage(of: both).focusedSeconds(from: at(0), to: at(100)), 18, accuracy: 1e-9)
        XCTAssertEqual(live.usage(of: videos).focusedSeconds(from: at(0), to: at(100)), 13, accuracy: 1e-9)
    }

    func testTheOpenIntervalAccruesForItsWebsite() throws {
        let live = liveUsage()
        let videos = DeviceActivityEvent(webDomains: [videoToken], threshold: DateComponents(minute: 1))
        _ = try live.intervalOpened(app: chromium, token: chromiumApp, site: video, at: at(0))
        XCTAssertEqual(live.accrualRate(of: videos, at: at(1)), 1)
        XCTAssertEqual(live.usage(of: videos).accrualRate(at: at(1)), 1)
        XCTAssertEqual(live.focusedSeconds(of: videos, from: at(0), to: at(7)), 7, accuracy: 1e-9)
        _ = try live.intervalOpened(app: chromium, token: chromiumApp, site: wiki, at: at(7))
        XCTAssertEqual(live.accrualRate(of: videos, at: at(8)), 0)
        XCTAssertEqual(live.focusedSeconds(of: videos, from: at(0), to: at(20)), 7, accuracy: 1e-9)
    }

    func testSeedingFromTheLedgerKeepsTheWebsites() throws {
        let ledger = try Ledger()
        let session = try ledger.beginAgentSession(pid: 1, display: ":1", at: at(0)).sessionID
        let sink = LedgerSink(ledger: ledger, sessionID: session)
        let id = try sink.intervalOpened(app: chromium, token: chromiumApp, site: video, at: at(0))
        try sink.intervalClosed(id, duration: .seconds(4), reason: .siteChange)
        let live = liveUsage()
        try live.seed(from: ledger, now: at(60))
        let videos = DeviceActivityEvent(webDomains: [videoToken], threshold: DateComponents(minute: 1))
        XCTAssertEqual(live.focusedSeconds(of: videos, from: at(0), to: at(60)), 4, accuracy: 1e-9)
    }

    func testACategoryEventCountsItsWebsitesToo() throws {
        let games = ActivityCategoryToken(opaqueValue: "games")
        let live = LiveUsage(
            forwardingTo: RecordingSink(), categories: .none,
            websites: WebsiteTokens(
                { WebDomainToken(opaqueValue: "web-\($0)") }, categories: { $0 == "videos.test" ? [games] : [] }))
        try focus(live, chromium, chromiumApp, video, 0, 4)
        try focus(live, chromium, chromiumApp, wiki, 4, 6)
        _ = try live.intervalOpened(app: firefox, token: firefoxApp, site: video, at: at(6))
        let gaming = DeviceActivityEvent(categories: [games], threshold: DateComponents(minute: 1))
        XCTAssertEqual(live.focusedSeconds(of: gaming, from: at(0), to: at(10)), 4 + 4, accuracy: 1e-9)
        XCTAssertEqual(live.accrualRate(of: gaming, at: at(7)), 1)
        XCTAssertEqual(live.usage(of: gaming).focusedSeconds(from: at(0), to: at(10)), 8, accuracy: 1e-9)
    }
}
