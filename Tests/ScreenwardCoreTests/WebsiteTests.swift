import Foundation
import TestSupport
import XCTest

@testable import ScreenwardBasics
@testable import ScreenwardCore

/// Websites from URLs and names, by the Public Suffix List Debian ships (`publicsuffix`).
final class WebsiteTests: XCTestCase {
    private var addresses: WebAddresses!

    override func setUpWithError() throws {
        let list: PublicSuffixList
        do {
            list = try PublicSuffixList.load()
        } catch {
            // scripts/install-deps.sh installs it; a machine without it cannot tell websites apart.
            try cannotRun("\(error)")
        }
        XCTAssertGreaterThan(list.ruleCount, 5000, "Debian's list has some ten thousand rules")
        addresses = WebAddresses(suffixes: list)
    }

    private func site(_ url: String, file: StaticString = #filePath, line: UInt = #line) -> Website? {
        do {
            return try addresses.website(forURL: url)
        } catch {
            XCTFail("\(url): \(error)", file: file, line: line)
            return nil
        }
    }

    func testAWebsiteIsItsRegistrableDomainAndKeepsItsHost() {
        XCTAssertEqual(
            site("https://www.youtube.com/watch?v=1"), Website(domain: "youtube.com", host: "www.youtube.com"))
        XCTAssertEqual(site("https://m.youtube.com/")?.domain, "youtube.com")
        XCTAssertEqual(site("https://youtube.com")?.domain, "youtube.com")
        XCTAssertEqual(site("http://news.bbc.co.uk/sport"), Website(domain: "bbc.co.uk", host: "news.bbc.co.uk"))
        XCTAssertEqual(site("https://EN.Wikipedia.ORG./wiki/X")?.host, "en.wikipedia.org")
        XCTAssertEqual(site("https://en.wikipedia.org/")?.domain, "wikipedia.org")
    }

    func testTheListsPrivateSectionMakesSitesOfTheirOwn() {
        XCTAssertEqual(site("https://someone.github.io/page")?.domain, "someone.github.io")
        // A public suffix itself is its own website: no one registered it, and it is somewhere.
        XCTAssertEqual(site("https://github.io/")?.domain, "github.io")
    }

    func testPortsUserInformationAndPathsAreLeftOut() {
        XCTAssertEqual(site("http://example.com:8080/a?b#c"), Website(domain: "example.com", host: "example.com"))
        XCTAssertEqual(
            site("https://user:secret@www.example.com/"), Website(domain: "example.com", host: "www.example.com"))
        XCTAssertEqual(site("https://a.example.com\\evil")?.host, "a.example.com")
    }

    func testAddressesAreTheirOwnWebsites() {
        XCTAssertEqual(site("http://127.0.0.1:8080/x"), Website(domain: "127.0.0.1", host: "127.0.0.1"))
        XCTAssertEqual(site("http://[::1]:8080/"), Website(domain: "[::1]", host: "[::1]"))
        XCTAssertEqual(site("http://localhost:8000/")?.domain, "localhost")
    }

    func testInternationalNamesAreKeptInASCIIAndReadInUnicode() throws {
        let unicode = try XCTUnwrap(site("https://www.Bücher.de/"))
        XCTAssertEqual(unicode, Website(domain: "xn--bcher-kva.de", host: "www.xn--bcher-kva.de"))
        XCTAssertEqual(unicode.readableDomain, "bücher.de")
        XCTAssertEqual(site("https://www.xn--bcher-kva.de/"), unicode, "as a browser writes it: the same website")
        // A top-level domain in Unicode on the list (公司.cn is a suffix, so the site is one label more).
        XCTAssertEqual(site("https://example.xn--55qx5d.cn/")?.domain, "example.xn--55qx5d.cn")
        XCTAssertEqual(try addresses.website(named: "例子.公司.cn").domain, "xn--fsqu00a.xn--55qx5d.cn")
    }

    /// What an app names (`WebDomain(domain:)`) is kept as the browsers report it, so a token
    /// issued for an international name is the token its time and shields are filed under.
    func testAnAppsDomainIsKeptAsTheBrowsersReportIt() throws {
        XCTAssertEqual(ItemDirectory.normalizedDomain("Bücher.DE."), "xn--bcher-kva.de")
        XCTAssertEqual(ItemDirectory.normalizedDomain("xn--bcher-kva.de"), "xn--bcher-kva.de")
        XCTAssertEqual(ItemDirectory.normalizedDomain(" News.Example.org "), "news.example.org")
        XCTAssertEqual(
            try addresses.website(forURL: "https://www.bücher.de/").domain,
            ItemDirectory.normalizedDomain("bücher.de"))
        for bad in [
            "bücher", "", "a..b", "-a.com", "xn--zz-.com", "exa mple.com", String(repeating: "a", count: 64) + ".com",
        ] {
            XCTAssertNil(ItemDirectory.normalizedDomain(bad), bad)
        }
    }

    func testPunycodeAgreesWithRFC3492AndBrowsers() {
        for (unicode, ascii) in [
            ("bücher", "xn--bcher-kva"), ("münchen", "xn--mnchen-3ya"), ("пример", "xn--e1afmkfd"),
            ("例子", "xn--fsqu00a"), ("ليهمابتكلموشعربي؟", "xn--egbpdaj6bu4bxfgehfvwxn"),
            ("abc", "abc"),
        ] {
            XCTAssertEqual(Punycode.encode(label: unicode), ascii, unicode)
            XCTAssertEqual(Punycode.decode(label: ascii), unicode, ascii)
        }
        XCTAssertNil(Punycode.decode(label: "xn--99999999999999999999"), "overflow is no label")
        XCTAssertNil(Punycode.decode(label: "xn--ab!"), "not Punycode")
    }

    func testWildcardAndExceptionRules() throws {
        let list = try PublicSuffixList(
            contents: """
                // a list of three rules
                com
                *.ck
                !www.ck
                """)
        XCTAssertEqual(list.publicSuffix(of: "a.b.ck"), "b.ck")
        XCTAssertEqual(list.registrableDomain(of: "a.b.ck"), "a.b.ck")
        XCTAssertNil(list.registrableDomain(of: "b.ck"), "a wildcard's name is a suffix")
        XCTAssertEqual(list.registrableDomain(of: "www.ck"), "www.ck", "the exception")
        XCTAssertEqual(list.registrableDomain(of: "x.y.example.org"), "example.org", "the default rule: the last label")
        XCTAssertThrowsError(try PublicSuffixList(contents: "// nothing\n"))
        XCTAssertThrowsError(try PublicSuffixList.load(from: "/nonexistent/list.dat")) { error in
            XCTAssertTrue("\(error)".contains("publicsuffix"), "\(error)")
        }
    }

    func testPagesOfNoWebsiteAreToldApart() {
        for (url, scheme) in [
            ("about:blank", "about"), ("file:///etc/passwd", "file"), ("data:text/html,<h1>hi</h1>", "data"),
            ("chrome://settings/", "chrome"), ("moz-extension://1234/shield.html", "moz-extension"),
            ("chrome-extension://abcdef/shield.html", "chrome-extension"), ("javascript:alert(1)", "javascript"),
            ("view-source:https://example.com/", "view-source"),
        ] {
            XCTAssertThrowsError(try addresses.website(forURL: url)) { error in
                XCTAssertEqual(error as? WebAddresses.Rejection, .notAWebPage(scheme: scheme), url)
            }
        }
    }

    func testGarbageIsMalformedAndSaysWhatItWas() {
        let huge = "https://example.com/" + String(repeating: "a", count: 100_000)
        for url in [
            "", "::::", "http://", "http:example.com", "https://-bad-.com/", "http://exa mple.com/", "http://a..b.com/",
            "https://xn--ab!.com/", "http://example.com:80x/", "http://[::1/", "http://[zz]/", "http://1234/", huge,
            "https://" + String(repeating: "a", count: 64) + ".com/", "https://\u{0}.com/",
            "\u{202e}moc.elpmaxe//:sptth",
        ] {
            XCTAssertThrowsError(try addresses.website(forURL: url), url.prefix(60).description) { error in
                guard case .malformed(let why) = error as? WebAddresses.Rejection else { return XCTFail("\(error)") }
                XCTAssertLessThan(why.count, 200, "a log line, not the input")
                XCTAssertFalse(why.contains("\u{0}") || why.contains("\u{202e}"), why)
            }
        }
    }

    func testANameAPersonTypesIsItsWebsite() throws {
        XCTAssertEqual(try addresses.website(named: "YouTube.com").domain, "youtube.com")
        XCTAssertEqual(try addresses.website(named: " www.youtube.com ").domain, "youtube.com")
        XCTAssertEqual(try addresses.website(named: "https://m.youtube.com/watch").domain, "youtube.com")
        XCTAssertThrowsError(try addresses.website(named: "youtube.com/watch"))
        XCTAssertThrowsError(try addresses.website(named: "me@youtube.com"))
    }
}
