import Foundation
@_spi(Screenward) import ManagedSettings
import XCTest

@testable import ScreenTimePolicy
@_spi(Screenward) @testable import ScreenwardCore

/// `screenward shields`: the listing computed from a real ledger, written through the
/// transactions the state owner uses.
final class ShieldListingTests: XCTestCase {
    let minter = TokenMinter(secret: DeviceSecret(bytes: Array(repeating: 5, count: 32)))
    let worklog = "org.example.worklog"
    let focus = "org.example.focus"
    var ledger: Ledger!
    var directory: ItemDirectory!

    override func setUpWithError() throws {
        ledger = try Ledger(url: try makeTemporaryDirectory().appendingPathComponent("ledger.sqlite"))
        let tableURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("data/categories.json")
        let catalog = ApplicationCatalog(entries: [
            DesktopEntry(
                id: "chat.desktop", name: "Chat", categories: ["Network", "InstantMessaging"],
                path: URL(fileURLWithPath: "/x/chat.desktop")),
            DesktopEntry(
                id: "chess.desktop", name: "Chess", categories: ["Game", "BoardGame"],
                path: URL(fileURLWithPath: "/x/chess.desktop")),
            DesktopEntry(
                id: "editor.desktop", name: "Editor", categories: ["Development"],
                path: URL(fileURLWithPath: "/x/editor.desktop")),
        ])
        directory = ItemDirectory(minter: minter, catalog: catalog, categories: try CategoryTable.load(from: tableURL))
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        for client in [worklog, focus] {
            _ = try ledger.authorize(client: client, member: "individual", grantKey: "key-\(client)", at: now)
        }
        // An application seen in use that no desktop entry describes.
        let session = try ledger.beginAgentSession(pid: 1, display: ":9", at: now)
        let spaceGame = AppIdentity(key: .windowClass("SpaceGame"), displayName: "Space Game", categories: ["Game"])
        try ledger.openInterval(
            sessionID: session.sessionID, app: spaceGame, token: minter.applicationToken(for: spaceGame),
            startingAt: now)
    }

    // MARK: Helpers

    func app(_ id: String) -> ApplicationToken {
        directory.application(publicID: id).map(minter.applicationToken(for:))
            ?? minter.applicationToken(for: AppIdentity(key: .desktopEntry(id), displayName: id))
    }

    func category(_ id: String) -> ActivityCategoryToken { minter.categoryToken(forCategory: id) }
    func domain(_ name: String) -> WebDomainToken { minter.webDomainToken(forDomain: name) }

    /// Records what the picker would have issued to `client` (the labels the listing names tokens by).
    func issue(_ client: String, apps: [String] = [], categories: [String] = [], domains: [String] = []) throws {
        let tokens =
            apps.map { IssuedToken(kind: .application, token: "c-\($0)", deviceToken: app($0).opaqueValue, label: $0) }
            + categories.map {
                IssuedToken(kind: .category, token: "c-\($0)", deviceToken: category($0).opaqueValue, label: $0)
            }
            + domains.map {
                IssuedToken(kind: .webDomain, token: "c-\($0)", deviceToken: domain($0).opaqueValue, label: $0)
            }
        try ledger.recordIssuedTokens(tokens, client: client)
    }

    func save(
        _ client: String, _ name: String, shield: ShieldSettings = .init(), application: ApplicationSettings = .init()
    ) throws {
        try ledger.saveStore(
            client: client, name: name, contents: StoreContents(shield: shield, application: application), at: Date())
    }

    func listing(language: String = "en") throws -> ShieldListing {
        try ShieldListing.load(from: ledger, directory: directory, language: language)
    }

    func item(_ items: [ShieldListing.Item], _ id: String, file: StaticString = #filePath, line: UInt = #line) throws
        -> ShieldListing.Item
    {
        try XCTUnwrap(items.first { $0.id == id }, "\(id) is not listed in \(items.map(\.id))", file: file, line: line)
    }

    // MARK: Tests

    func testNothingStoredListsNothing() throws {
        let listing = try listing()
        XCTAssertTrue(listing.isEmpty)
        XCTAssertEqual(listing.problems, [])
    }

    /// The Worklog talk's stores, plus a second app that lists and blocks applications.
    func testCategoriesExpandOverCatalogAndSeenApplicationsWithEveryReason() throws {
        try issue(worklog, apps: ["chat.desktop"], categories: ["Social", "Game"], domains: ["example.com"])
        try issue(focus, apps: ["editor.desktop"])
        let stray = ApplicationToken(opaqueValue: "StrayTokenNobodyNames0")
        try save(
            worklog, "social",
            shield: .init(applicationCategories: .specific([category("Social")]), webDomains: [domain("example.com")]))
        try save(worklog, "gaming", shield: .init(applicationCategories: .specific([category("Game")])))
        try save(
            focus, "default", shield: .init(applications: [app("editor.desktop"), stray]),
            application: .init(blockedApplications: [Application(bundleIdentifier: "chess.desktop")]))

        let listing = try listing()
        XCTAssertEqual(
            listing.applications.map(\.id),
            ["chat.desktop", "chess.desktop", "editor.desktop", "wmclass:SpaceGame", "token:\(stray.opaqueValue)"])

        let chat = try item(listing.applications, "chat.desktop")
        XCTAssertEqual(chat.name, "Chat")
        XCTAssertEqual(chat.kind, .application)
        XCTAssertEqual(chat.token, app("chat.desktop").opaqueValue)
        XCTAssertEqual(
            chat.reasons,
            [.init(app: worklog, store: "social", rule: .category, category: "Social", categoryName: "Social")])

        let chess = try item(listing.applications, "chess.desktop")
        XCTAssertEqual(
            chess.reasons,
            [
                .init(app: focus, store: "default", rule: .blocked),
                .init(app: worklog, store: "gaming", rule: .category, category: "Game", categoryName: "Games"),
            ])
        XCTAssertEqual(
            try item(listing.applications, "editor.desktop").reasons,
            [.init(app: focus, store: "default", rule: .listed)])

        // Known only from the ledger's application table: still expanded through its category.
        let spaceGame = try item(listing.applications, "wmclass:SpaceGame")
        XCTAssertEqual(spaceGame.name, "Space Game")
        XCTAssertEqual(spaceGame.reasons.map(\.category), ["Game"])

        let unknown = try item(listing.applications, "token:\(stray.opaqueValue)")
        XCTAssertFalse(unknown.isKnown)
        XCTAssertEqual(unknown.name, "unknown item (StrayTok…)")
        XCTAssertEqual(unknown.reasons.map(\.rule), [.listed])

        XCTAssertEqual(listing.categories.map(\.id), ["Game", "Social"])
        XCTAssertEqual(listing.categories.map(\.name), ["Games", "Social"])
        XCTAssertEqual(
            try item(listing.categories, "Game").reasons, [.init(app: worklog, store: "gaming", rule: .listed)])

        XCTAssertEqual(listing.webDomains.map(\.id), ["example.com"])
        XCTAssertEqual(listing.webDomains[0].kind, .webDomain)
        XCTAssertEqual(listing.webDomains[0].reasons, [.init(app: worklog, store: "social", rule: .listed)])
    }

    func testAnExceptionInOneStoreDoesNotLiftAnother() throws {
        try save(worklog, "gaming", shield: .init(applicationCategories: .specific([category("Game")])))
        try save(
            worklog, "evening",
            shield: .init(applicationCategories: .specific([category("Game")], except: [app("chess.desktop")])))
        let chess = try item(try listing().applications, "chess.desktop")
        XCTAssertEqual(chess.reasons.map(\.store), ["gaming"])
    }

    func testAllCategoriesCoversEveryApplicationButItsExceptions() throws {
        try issue(focus, apps: ["editor.desktop"], domains: ["news.example", "docs.example"])
        try save(
            focus, "deep-work",
            shield: .init(
                applicationCategories: .all(except: [app("editor.desktop")]),
                webDomainCategories: .all(except: [domain("docs.example")])))
        let listing = try listing()
        XCTAssertEqual(listing.applications.map(\.id), ["chat.desktop", "chess.desktop", "wmclass:SpaceGame"])
        XCTAssertTrue(
            listing.applications.allSatisfy {
                $0.reasons == [.init(app: focus, store: "deep-work", rule: .allCategories)]
            })
        XCTAssertEqual(listing.categories.map(\.id), [ShieldListing.allCategoriesID])
        XCTAssertEqual(listing.categories[0].name, "All categories")
        XCTAssertNil(listing.categories[0].token)
        // Both policies of the store give one reason.
        XCTAssertEqual(listing.categories[0].reasons, [.init(app: focus, store: "deep-work", rule: .allCategories)])
        XCTAssertEqual(listing.webDomains.map(\.id), ["news.example"])
    }

    func testCategoryNamesFollowTheLanguage() throws {
        try issue(worklog, categories: ["Game"])
        try save(worklog, "gaming", shield: .init(applicationCategories: .specific([category("Game")])))
        let korean = try listing(language: "ko")
        XCTAssertEqual(korean.categories.map(\.name), ["게임"])
        XCTAssertEqual(try item(korean.applications, "chess.desktop").reasons.map(\.categoryName), ["게임"])
        XCTAssertEqual(try listing(language: "vi").categories.map(\.name), ["Trò chơi"])
        XCTAssertEqual(
            try listing(language: "de").categories.map(\.name), ["Games"], "an unknown language falls back to English")

        XCTAssertEqual(ShieldListing.language(fromEnvironment: ["LANG": "ko_KR.UTF-8"]), "ko")
        XCTAssertEqual(ShieldListing.language(fromEnvironment: ["LANG": "en_US.UTF-8", "LC_MESSAGES": "vi_VN"]), "vi")
        XCTAssertEqual(ShieldListing.language(fromEnvironment: ["LC_ALL": "C.UTF-8", "LANG": "ko_KR"]), "en")
        XCTAssertEqual(ShieldListing.language(fromEnvironment: [:]), "en")
    }

    func testBlockedApplicationsByTokenAndByUnknownBundleIdentifier() throws {
        try save(
            focus, "default",
            application: .init(blockedApplications: [
                Application(token: app("chat.desktop")), Application(bundleIdentifier: "uninstalled.desktop"),
            ]))
        let listing = try listing()
        XCTAssertEqual(listing.applications.map(\.id), ["chat.desktop", "uninstalled.desktop"])
        XCTAssertTrue(listing.applications.allSatisfy { $0.reasons.map(\.rule) == [.blocked] })
        XCTAssertNil(try item(listing.applications, "uninstalled.desktop").token)
        XCTAssertTrue(listing.categories.isEmpty)
    }

    /// An uninstalled application is named by the label of the token issued for it.
    func testLabelsNameApplicationsTheCatalogNoLongerHas() throws {
        try issue(worklog, apps: ["gone.desktop"])
        try save(worklog, "default", shield: .init(applications: [app("gone.desktop")]))
        let gone = try item(try listing().applications, "gone.desktop")
        XCTAssertTrue(gone.isKnown)
        XCTAssertEqual(gone.name, "gone.desktop")
    }

    func testADamagedStoreIsReportedNotFatal() throws {
        try save(worklog, "gaming", shield: .init(applicationCategories: .specific([category("Game")])))
        try ledger.database.write { db in
            try db.execute(
                sql: "INSERT INTO managedStore (client, name, contents, updatedAt) VALUES (?, 'broken', '{', 0)",
                arguments: [self.worklog])
        }
        let listing = try listing()
        XCTAssertEqual(listing.categories.map(\.id), ["Game"])
        XCTAssertEqual(listing.problems.count, 1)
        XCTAssertTrue(listing.problems[0].contains("org.example.worklog/broken"), listing.problems[0])
    }
}
