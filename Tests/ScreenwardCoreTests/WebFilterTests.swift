import Foundation
@_spi(Screenward) import ManagedSettings
import XCTest

@testable import ScreenwardCore

/// `webContent.blockedByFilter` in its three forms, as the owner checks and combines them.
final class WebFilterTests: XCTestCase {
    private func domains(_ names: String...) -> Set<WebDomain> { Set(names.map { WebDomain(domain: $0) }) }

    func testDomainsAreCheckedAndWrittenAsTheOwnerKeepsThem() throws {
        XCTAssertEqual(
            try WebFilter.checked(.specific(domains("Example.COM.", "bücher.de"))),
            .specific(domains("example.com", "xn--bcher-kva.de")))
        XCTAssertThrowsError(try WebFilter.checked(.specific([WebDomain(token: WebDomainToken(opaqueValue: "abc"))]))) {
            error in
            XCTAssertTrue("\(error)".contains("by domain"), "\(error)")
        }
        XCTAssertThrowsError(try WebFilter.checked(.all(except: domains("not a domain"))))
        XCTAssertThrowsError(
            try WebFilter.checked(
                .auto(Set((0...WebContentSettings.maximumDomains).map { WebDomain(domain: "s\($0).test") }), except: [])
            ))
    }

    func testTheFormsCombineAndTheStrictestWins() {
        let lists = { ["adult.test", "casino.test"] }
        XCTAssertTrue(WebFilter.combine([], lists: lists).isEmpty)
        XCTAssertTrue(WebFilter.combine([.none], lists: lists).isEmpty)
        XCTAssertEqual(WebFilter.combine([.specific(domains("a.test"))], lists: lists), .init(blocked: ["a.test"]))
        // .auto: the administrator's lists and the app's additions, less what it spares.
        XCTAssertEqual(
            WebFilter.combine([.auto(domains("b.test"), except: domains("casino.test"))], lists: lists),
            .init(blocked: ["adult.test", "b.test"]))
        // .all(except:): every website but what every such store spares; a website another store blocks is not spared.
        XCTAssertEqual(
            WebFilter.combine(
                [
                    .all(except: domains("wiki.test", "news.test")), .all(except: domains("wiki.test")),
                    .specific(domains("x.test")),
                ], lists: lists),
            .init(blocked: [], allExcept: ["wiki.test"]))
        XCTAssertEqual(
            WebFilter.combine([.all(except: domains("wiki.test")), .specific(domains("wiki.test"))], lists: lists),
            .init(blocked: [], allExcept: []))
    }

    func testTheAdministratorsListsAreRead() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("web-filter-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try "# adult websites\nadult.test\n  Casino.TEST  # a comment\nnot a host\n\n".write(
            to: folder.appendingPathComponent("a.list"), atomically: true, encoding: .utf8)
        try "ignored.test\n".write(to: folder.appendingPathComponent("notes.txt"), atomically: true, encoding: .utf8)
        XCTAssertEqual(WebFilter.administratorLists(in: folder.path), ["adult.test", "casino.test"])
        XCTAssertEqual(WebFilter.administratorLists(in: "/nonexistent"), [])
    }

    func testStoresKeptBeforeWebContentStillRead() throws {
        let old = #"{"shield":{},"application":{}}"#
        XCTAssertEqual(
            try JSONDecoder().decode(StoreContents.self, from: Data(old.utf8)).webContent, WebContentSettings())
        var contents = StoreContents(shield: .init(), application: .init())
        contents.apply(.webContentBlockedByFilter(.all(except: domains("wiki.test"))))
        XCTAssertFalse(contents.isEmpty)
        XCTAssertEqual(try JSONDecoder().decode(StoreContents.self, from: JSONEncoder().encode(contents)), contents)
        let changed = StoreChange.settings(from: StoreContents(shield: .init(), application: .init()), to: contents)
        XCTAssertEqual(changed, [.webContentBlockedByFilter(.all(except: domains("wiki.test")))])
    }
}
