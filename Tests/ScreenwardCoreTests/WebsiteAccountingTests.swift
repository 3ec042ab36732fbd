import Foundation
import TestSupport
import XCTest

@testable import ScreenwardCore

/// Time on websites: part of the browser's intervals, never beside them.
final class WebsiteAccountingTests: XCTestCase {
    let browser = AppIdentity(key: .desktopEntry("chromium.desktop"), displayName: "Chromium")
    let editor = AppIdentity(key: .desktopEntry("org.example.Editor.desktop"), displayName: "Editor")
    let video = Website(domain: "youtube.com", host: "www.youtube.com")
    let mobileVideo = Website(domain: "youtube.com", host: "m.youtube.com")
    let wiki = Website(domain: "wikipedia.org", host: "en.wikipedia.org")

    var time: ManualTime!
    var ledger: Ledger!
    var accountant: UsageAccountant!

    override func setUpWithError() throws {
        time = ManualTime()
        ledger = try Ledger()
        let session = try ledger.beginAgentSession(pid: 1, display: ":9", at: time.now().wall).sessionID
        accountant = UsageAccountant(
            sink: LedgerSink(ledger: ledger, sessionID: session),
            minter: TokenMinter(secret: DeviceSecret(bytes: Array(repeating: 7, count: 32))))
    }

    func report() throws -> UsageReport {
        try ledger.usage(since: .distantPast, until: .distantFuture, liveSessionID: nil, now: time.now().wall)
    }

    func testEachTabsTimeGoesToItsWebsiteAndAllOfItToTheBrowser() throws {
        accountant.focusChanged(to: browser, site: video, at: time.now())
        time.advance(.seconds(10))
        accountant.siteChanged(to: wiki, at: time.now())  // another tab
        time.advance(.seconds(4))
        accountant.siteChanged(to: mobileVideo, at: time.now())
        time.advance(.seconds(3))
        accountant.siteChanged(to: nil, at: time.now())  // a page of the browser's own
        time.advance(.seconds(2))
        accountant.focusChanged(to: editor, at: time.now())
        time.advance(.seconds(5))
        accountant.focusChanged(to: browser, site: wiki, at: time.now())
        time.advance(.seconds(1))
        accountant.stop(at: time.now(), reason: .agentStopped)

        let report = try report()
        let chromium = try XCTUnwrap(report.apps.first { $0.id == "chromium.desktop" })
        XCTAssertEqual(chromium.seconds, 20, accuracy: 1e-6, "the browser's time is all of it, websites or not")
        XCTAssertEqual(chromium.websites.map(\.domain), ["youtube.com", "wikipedia.org"])
        XCTAssertEqual(chromium.websites[0].seconds, 13, accuracy: 1e-6)
        XCTAssertEqual(chromium.websites[0].hosts.map(\.host), ["www.youtube.com", "m.youtube.com"])
        XCTAssertEqual(chromium.websites[1].seconds, 5, accuracy: 1e-6)
        XCTAssertEqual(report.apps.first { $0.id == "org.example.Editor.desktop" }?.websites, [])
        XCTAssertEqual(report.websites.map(\.seconds), [13, 5])
        XCTAssertEqual(report.totalSeconds, 25, accuracy: 1e-6, "nothing counted twice")
    }

    func testIdleAndLockStopAWebsiteLikeAnApplication() throws {
        accountant.focusChanged(to: browser, site: video, at: time.now())
        time.advance(.seconds(6))
        accountant.userWentIdle(lastInput: time.now())
        time.advance(.seconds(600))
        accountant.siteChanged(to: wiki, at: time.now())  // autoplay moved on while idle
        accountant.userReturned(at: time.now())
        time.advance(.seconds(2))
        accountant.lockChanged(isLocked: true, at: time.now())
        time.advance(.seconds(60))
        accountant.stop(at: time.now(), reason: .agentStopped)
        XCTAssertEqual(try report().websites.map(\.domain), ["youtube.com", "wikipedia.org"])
        XCTAssertEqual(try report().websites.map(\.seconds), [6, 2])
    }

    func testTheSameWebsiteKeepsItsIntervalAndLeavingTheBrowserEndsIt() throws {
        accountant.focusChanged(to: browser, site: video, at: time.now())
        time.advance(.seconds(1))
        accountant.siteChanged(to: video, at: time.now())
        accountant.focusChanged(to: browser, site: video, at: time.now())  // a new title, same page
        time.advance(.seconds(1))
        XCTAssertEqual(accountant.openInterval?.site, video)
        accountant.focusChanged(to: nil, at: time.now())
        XCTAssertNil(accountant.site, "no window, no website")
        accountant.siteChanged(to: wiki, at: time.now())
        XCTAssertNil(accountant.openInterval, "a report for no focused window starts nothing")
        let intervals = try ledger.database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM usageInterval")
        }
        XCTAssertEqual(intervals, 1)
    }
}
