import Foundation
@_spi(Screenward) import ManagedSettings
import TestSupport
import XCTest

@testable import ScreenwardCore

/// The website a focused X window shows, from its browser's reports; and the extension's
/// messages, hostile ones included.
final class BrowserTabsTests: XCTestCase {
    private var tabs: BrowserTabs!

    override func setUpWithError() throws {
        do {
            tabs = BrowserTabs(addresses: WebAddresses(suffixes: try PublicSuffixList.load()))
        } catch {
            try cannotRun("\(error)")
        }
    }

    private func window(_ id: Int, _ url: String, _ title: String) -> BrowserWindowsReport.Window {
        .init(id: id, incognito: false, tab: .init(url: url, title: title))
    }

    func testTheFocusedXWindowIsMatchedByProcessAndTitle() {
        tabs.update(
            BrowserWindowsReport(
                browserPID: 100, focusedWindow: 2,
                windows: [
                    window(1, "https://www.youtube.com/watch", "Cats"),
                    window(2, "https://en.wikipedia.org/wiki/Cat", "Cat - Wikipedia"),
                ]), from: 1)
        tabs.update(
            BrowserWindowsReport(
                browserPID: 200, focusedWindow: 7, windows: [window(7, "https://example.org/", "Cats")]), from: 2)
        XCTAssertEqual(tabs.site(windowPID: 100, title: "Cat - Wikipedia — Mozilla Firefox")?.domain, "wikipedia.org")
        XCTAssertEqual(
            tabs.site(windowPID: 100, title: "Cats - Chromium")?.domain, "youtube.com",
            "the other window of the same browser")
        XCTAssertEqual(
            tabs.site(windowPID: 200, title: "Cats - Chromium")?.domain, "example.org",
            "the same title in another browser")
        XCTAssertNil(tabs.site(windowPID: 300, title: "Cats"), "a window of no reporting browser")
        XCTAssertNil(tabs.site(windowPID: 100, title: "Downloads"), "a browser window no tab explains (a dialog)")
        XCTAssertNil(tabs.site(windowPID: nil, title: "Cats"))
    }

    func testOfTwoWindowsWithTheSameTitleTheFocusedOneCounts() {
        tabs.update(
            BrowserWindowsReport(
                browserPID: 100, focusedWindow: 2,
                windows: [
                    window(1, "https://a.example.com/", "Home"), window(2, "https://b.example.net/", "Home"),
                ]), from: 1)
        XCTAssertEqual(tabs.site(windowPID: 100, title: "Home - Chromium")?.domain, "example.net")
    }

    func testPagesOfNoWebsiteAndAGoneBrowserShowNone() {
        tabs.update(
            BrowserWindowsReport(browserPID: 100, focusedWindow: 1, windows: [window(1, "about:blank", "New Tab")]),
            from: 1)
        XCTAssertNil(tabs.site(windowPID: 100, title: "New Tab - Chromium"))
        tabs.update(
            BrowserWindowsReport(
                browserPID: 100, focusedWindow: 1, windows: [window(1, "https://example.com/", "Example")]), from: 1)
        XCTAssertEqual(tabs.site(windowPID: 100, title: "Example - Chromium")?.domain, "example.com")
        tabs.forget(connection: 1)
        XCTAssertNil(tabs.site(windowPID: 100, title: "Example - Chromium"))
        XCTAssertTrue(tabs.isEmpty)
    }

    func testTimeInFrontOfTheShieldPageIsNobodys() {
        tabs.update(
            BrowserWindowsReport(
                browserPID: 100, focusedWindow: 1,
                windows: [
                    window(
                        1,
                        "chrome-extension://kcjmpdfdmamjfgmkicnailjlhckajpph/shield.html"
                            + "?site=videos.test&url=https://www.videos.test/",
                        "videos.test (restricted)"),
                    window(
                        2, "moz-extension://0d6f4b8a/shield.html?site=news.test&filter=1&url=http://news.test/",
                        "news.test (blocked)"),
                    window(3, "chrome-extension://abc/options.html", "Options"),
                ]), from: 1)
        XCTAssertEqual(tabs.showing(windowPID: 100, title: "videos.test (restricted) - Chromium"), .shield)
        XCTAssertEqual(tabs.showing(windowPID: 100, title: "news.test (blocked) — Mozilla Firefox"), .shield)
        XCTAssertEqual(tabs.showing(windowPID: 100, title: "Options - Chromium"), .other)
        XCTAssertNil(tabs.site(windowPID: 100, title: "videos.test (restricted) - Chromium"))
    }

    func testTheExtensionsMessagesAreRead() throws {
        XCTAssertEqual(
            try ExtensionMessage.decode(Data(#"{"kind":"hello","extension":"1.0.0"}"#.utf8)), .hello(version: "1.0.0"))
        let message = try ExtensionMessage.decode(
            Data(
                #"""
                {"kind":"windows","focused":3,"windows":[{"id":3,"incognito":true,\#
                "tab":{"id":9,"url":"https://x.org/","title":"X"}},{"id":4,"incognito":false,"tab":null}]}
                """#.utf8))
        XCTAssertEqual(
            message,
            .windows(
                focused: 3,
                windows: [
                    .init(id: 3, incognito: true, tab: .init(url: "https://x.org/", title: "X")),
                    .init(id: 4, incognito: false, tab: nil),
                ]))
        XCTAssertEqual(
            try ExtensionMessage.decode(Data(#"{"kind":"windows","focused":-1,"windows":[]}"#.utf8)),
            .windows(focused: nil, windows: []))
        // A data: URL of megabytes is cut to its beginning: it is no website either way.
        let huge =
            #"{"kind":"windows","focused":1,"windows":[{"id":1,"tab":{"url":"data:text/html,"#
            + String(repeating: "a", count: 200_000) + #"","title":"t"}}]}"#
        guard case .windows(_, let windows) = try ExtensionMessage.decode(Data(huge.utf8)) else { return XCTFail() }
        XCTAssertEqual(windows.first?.tab?.url.count, 64)
    }

    func testHostileMessagesAreRefusedWithAReason() {
        let manyWindows =
            "[" + (0...BrowserWindowsReport.maximumWindows).map { #"{"id":\#($0)}"# }.joined(separator: ",") + "]"
        for (text, reason) in [
            ("", "not JSON"), ("null", "not a message"), ("[1,2]", "not a message"),
            (#"{"kind":"x"}"#, "unknown kind x"),
            (#"{"kind":"windows"}"#, "without windows"), (#"{"kind":"windows","windows":[{"id":"1"}]}"#, "wrong type"),
            (#"{"kind":"windows","windows":[{"id":1},{"id":1}]}"#, "named twice"),
            (#"{"kind":"windows","windows":\#(manyWindows)}"#, "at most \(BrowserWindowsReport.maximumWindows)"),
            (
                #"""
                {"kind":"windows","windows":[{"id":1,"tab":{"url":"https://a.b/",\#
                "title":"\#(String(repeating: "t", count: 5000))"}}]}
                """#,
                "at most 1024"
            ),
            (#"{"kind":"\u0000\u202e"}"#, "unknown kind ??"), ("\u{FF}\u{FE}garbage", "not JSON"),
        ] {
            XCTAssertThrowsError(try ExtensionMessage.decode(Data(text.utf8)), text.prefix(40).description) { error in
                XCTAssertTrue("\(error)".contains(reason), "\(error) (wanted: \(reason))")
                XCTAssertLessThan("\(error)".count, 200)
            }
        }
    }

    func testWhatTheBrowsersShieldIsTheUnionOfTheStores() {
        let video = WebDomainToken(opaqueValue: "video")
        let wiki = WebDomainToken(opaqueValue: "wiki")
        let news = WebDomainToken(opaqueValue: "news")
        let names = [video: "videos.test", wiki: "wiki.test", news: "news.test"].map {
            WebShields.Candidate(name: $1, token: $0)
        }
        let none = WebShields(shields: EffectiveShields(stores: []), candidates: names)
        XCTAssertEqual(none, WebShields(domains: [], allExcept: nil))
        let listed = EffectiveShields(stores: [
            StoreSettings(owner: "org.example.a", name: "one", shield: .init(webDomains: [video])),
            StoreSettings(owner: "org.example.b", name: "two", shield: .init(webDomains: [news, video])),
        ])
        XCTAssertEqual(
            WebShields(shields: listed, candidates: names),
            WebShields(domains: ["news.test", "videos.test"], allExcept: nil))
        // Every website but the spared; a website another store lists is not spared.
        let all = EffectiveShields(stores: [
            StoreSettings(
                owner: "org.example.a", name: "one", shield: .init(webDomainCategories: .all(except: [wiki, news]))),
            StoreSettings(owner: "org.example.b", name: "two", shield: .init(webDomains: [news])),
        ])
        XCTAssertEqual(WebShields(shields: all, candidates: names), WebShields(domains: [], allExcept: ["wiki.test"]))
        // A category's websites, as the table puts them in it.
        let games = ActivityCategoryToken(opaqueValue: "games")
        let byCategory = EffectiveShields(stores: [
            StoreSettings(
                owner: "org.example.worklog", name: "gaming", shield: .init(webDomainCategories: .specific([games])))
        ])
        let inCategories = [
            WebShields.Candidate(name: "videos.test", token: video, categories: [games]),
            WebShields.Candidate(name: "wiki.test", token: wiki),
        ]
        XCTAssertEqual(
            WebShields(shields: byCategory, candidates: inCategories),
            WebShields(domains: ["videos.test"], allExcept: nil))
        let message =
            try? JSONSerialization.jsonObject(with: ExtensionMessage.encodeShields(WebShields(domains: ["a.b"])))
            as? NSDictionary
        XCTAssertEqual(
            message,
            [
                "kind": "shields", "domains": ["a.b"], "allExcept": NSNull(), "filtered": [],
                "filteredAllExcept": NSNull(), "addresses": false,
            ] as NSDictionary,
            "allExcept is null, not absent")
    }
}
