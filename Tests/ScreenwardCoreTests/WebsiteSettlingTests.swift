import Foundation
import TestSupport
import XCTest

@testable import ScreenwardCore

/// A tab switch is told twice, by the window's title and by the browser's report, a few
/// milliseconds apart in either order: no website loses the moment in between, and the
/// boundary is where the title changed. Tried against the real accountant and ledger.
final class WebsiteSettlingTests: XCTestCase {
    let browser = AppIdentity(key: .desktopEntry("chromium.desktop"), displayName: "Chromium")
    let editor = AppIdentity(key: .desktopEntry("org.example.Editor.desktop"), displayName: "Editor")
    let video = Website(domain: "youtube.com", host: "www.youtube.com")
    let wiki = Website(domain: "wikipedia.org", host: "en.wikipedia.org")
    let window: UInt = 0x400001

    var time: ManualTime!
    var ledger: Ledger!
    var accountant: UsageAccountant!
    var settling: WebsiteSettling!

    override func setUpWithError() throws {
        time = ManualTime()
        ledger = try Ledger()
        let session = try ledger.beginAgentSession(pid: 1, display: ":9", at: time.now().wall).sessionID
        accountant = UsageAccountant(
            sink: LedgerSink(ledger: ledger, sessionID: session),
            minter: TokenMinter(secret: DeviceSecret(bytes: Array(repeating: 7, count: 32))))
        settling = WebsiteSettling()
    }

    /// What the agent does: the window `window` shows `app` on `site`, as `source` tells now.
    func show(_ app: AppIdentity?, _ site: Website?, window: UInt? = nil, _ source: WebsiteSettling.Source) {
        let changes = settling.update(
            window: window ?? self.window, shown: (app, site), counting: (accountant.focused, accountant.site),
            source: source, at: time.now())
        for change in changes { accountant.focusChanged(to: change.app, site: change.site, at: change.at) }
    }

    func expire() {
        for change in settling.expire(at: time.now()) {
            accountant.focusChanged(to: change.app, site: change.site, at: change.at)
        }
    }

    func seconds() throws -> [String: Double] {
        let report = try ledger.usage(
            since: .distantPast, until: .distantFuture, liveSessionID: nil, now: time.now().wall)
        var seconds = Dictionary(uniqueKeysWithValues: report.websites.map { ($0.domain, $0.seconds) })
        seconds["all"] = report.totalSeconds
        return seconds
    }

    func testTheTitleFirstPutsTheBoundaryWhereTheTitleChanged() throws {
        show(browser, video, .window)
        time.advance(.seconds(10))
        show(browser, nil, .window)  // the title is the new tab's; the report still the old one's
        XCTAssertEqual(accountant.site, video, "held: the website keeps the time meanwhile")
        time.advance(.milliseconds(30))
        show(browser, wiki, .report)
        XCTAssertEqual(accountant.site, wiki)
        time.advance(.seconds(5))
        show(editor, nil, .window)
        let seconds = try seconds()
        XCTAssertEqual(
            seconds["youtube.com"] ?? 0, 10, accuracy: 1e-6, "the boundary at the title's change, not the report's")
        XCTAssertEqual(seconds["wikipedia.org"] ?? 0, 5.03, accuracy: 1e-6)
        XCTAssertNil(settling.deadline)
    }

    func testTheReportFirstKeepsTheOldWebsiteUntilTheTitleChanges() throws {
        show(browser, video, .window)
        time.advance(.seconds(10))
        show(browser, nil, .report)  // the report names the new tab; the title is still the old one's
        time.advance(.milliseconds(20))
        show(browser, wiki, .window)
        time.advance(.seconds(5))
        show(editor, nil, .window)
        let seconds = try seconds()
        XCTAssertEqual(
            seconds["youtube.com"] ?? 0, 10.02, accuracy: 1e-6, "the old tab was on the screen until the title changed")
        XCTAssertEqual(seconds["wikipedia.org"] ?? 0, 5, accuracy: 1e-6)
    }

    func testAWindowThatStaysUnexplainedShowsNoWebsiteFromTheStart() throws {
        show(browser, video, .window)
        time.advance(.seconds(10))
        show(browser, nil, .window)  // a page of the browser's own, or a report that never comes
        XCTAssertEqual(settling.deadline, time.now().monotonic + WebsiteSettling.patience)
        time.advance(.milliseconds(200))
        expire()
        XCTAssertEqual(accountant.site, video, "not yet: the patience has not run out")
        time.advance(.milliseconds(300))
        expire()
        XCTAssertNil(accountant.site)
        XCTAssertEqual(accountant.focused, browser, "the browser's time goes on")
        time.advance(.seconds(2))
        show(editor, nil, .window)
        let seconds = try seconds()
        XCTAssertEqual(seconds["youtube.com"] ?? 0, 10, accuracy: 1e-6)
        XCTAssertEqual(seconds["all"] ?? 0, 12.5, accuracy: 1e-6)
    }

    func testAFlickerBackLeavesTheIntervalAlone() throws {
        show(browser, video, .window)
        time.advance(.seconds(3))
        show(browser, nil, .window)
        time.advance(.milliseconds(10))
        show(browser, video, .report)
        XCTAssertNil(settling.deadline, "nothing held any more")
        time.advance(.seconds(1))
        expire()
        show(editor, nil, .window)
        XCTAssertEqual(
            try ledger.recentUsage(since: .distantPast).intervals.filter { $0.webDomain != nil }.count, 1,
            "one interval on the website")
        XCTAssertEqual(try seconds()["youtube.com"] ?? 0, 4.01, accuracy: 1e-6)
    }

    func testAnotherWindowEndsTheHoldWhereItBegan() throws {
        show(browser, video, .window)
        time.advance(.seconds(3))
        show(browser, nil, .window)
        time.advance(.milliseconds(100))
        show(editor, nil, window: 0x500001, .window)  // the person moved on before the report
        XCTAssertEqual(accountant.focused, editor)
        XCTAssertNil(settling.deadline)
        time.advance(.seconds(2))
        show(nil, nil, window: nil, .window)
        let seconds = try seconds()
        XCTAssertEqual(seconds["youtube.com"] ?? 0, 3, accuracy: 1e-6)
        XCTAssertEqual(
            seconds["all"] ?? 0, 5.1, accuracy: 1e-6, "the browser's 0.1 s without a website, then the editor's")
    }

    /// A window that never showed a website, an application, a shield: told at once.
    func testOnlyAWebsiteGoingUnexplainedIsHeld() throws {
        show(browser, nil, .window)
        XCTAssertEqual(accountant.focused, browser)
        XCTAssertNil(settling.deadline, "no website to keep")
        show(browser, video, .report)
        time.advance(.seconds(1))
        show(nil, nil, .window)  // the shield page: nothing counts
        XCTAssertNil(accountant.focused)
        XCTAssertNil(settling.deadline)
    }
}
