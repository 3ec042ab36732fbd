@_spi(Screenward) import ManagedSettings
import XCTest

@testable import ScreenwardCore

final class ShieldDecisionTests: XCTestCase {
    let minter = TokenMinter(secret: DeviceSecret(bytes: Array(repeating: 5, count: 32)))
    let tux = AppIdentity(
        key: .desktopEntry("supertux2.desktop"), displayName: "SuperTux", categories: ["Game", "ArcadeGame"])
    let editor = AppIdentity(key: .windowClass("Editor"), displayName: "Editor")

    func decider(language: String = "en") throws -> ShieldDecider {
        ShieldDecider(minter: minter, categories: try DataDirectory.categoryTable(), language: language)
    }

    func testAnApplicationNoStoreNamesIsNotShielded() throws {
        let store = StoreSettings(
            owner: "org.example.a", name: "default", shield: .init(applications: [minter.applicationToken(for: tux)]))
        XCTAssertNil(try decider().decide(editor, in: EffectiveShields(stores: [store])))
        XCTAssertNil(try decider().decide(tux, in: EffectiveShields(stores: [])))
    }

    func testAListingStoreAnswersBeforeACategoryStore() throws {
        let games = minter.categoryToken(forCategory: "Game")
        let byCategory = StoreSettings(
            owner: "org.example.a", name: "games", shield: .init(applicationCategories: .specific([games])))
        let byName = StoreSettings(
            owner: "org.example.z", name: "default", shield: .init(applications: [minter.applicationToken(for: tux)]))
        let decision = try XCTUnwrap(try decider().decide(tux, in: EffectiveShields(stores: [byCategory, byName])))
        XCTAssertEqual(decision.owner, "org.example.z")
        XCTAssertNil(decision.category, "listed by itself: the shield names no category")
        XCTAssertEqual(decision.reasons.count, 2)
        XCTAssertEqual(decision.application, minter.applicationToken(for: tux))
    }

    func testACategoryShieldNamesTheCategoryInThePersonsLanguage() throws {
        let games = minter.categoryToken(forCategory: "Game")
        let store = StoreSettings(
            owner: "org.example.a", name: "games", shield: .init(applicationCategories: .specific([games])))
        let decision = try XCTUnwrap(try decider(language: "ko").decide(tux, in: EffectiveShields(stores: [store])))
        XCTAssertEqual(decision.category?.id, "Game")
        XCTAssertEqual(decision.category?.token, games)
        XCTAssertEqual(decision.subject, ShieldSubject(name: "SuperTux", categoryName: "게임"))
        XCTAssertEqual(decision.store, "games")
    }

    func testAllCategoriesShieldsEverythingButTheExceptions() throws {
        let store = StoreSettings(
            owner: "org.example.focus", name: "default",
            shield: .init(applicationCategories: .all(except: [minter.applicationToken(for: editor)])))
        let shields = EffectiveShields(stores: [store])
        XCTAssertNil(try decider().decide(editor, in: shields))
        XCTAssertEqual(try decider().decide(tux, in: shields)?.category?.name, "Games")
    }
}

final class BlockingDecisionTests: XCTestCase {
    let minter = TokenMinter(secret: DeviceSecret(bytes: Array(repeating: 5, count: 32)))
    let tux = AppIdentity(key: .desktopEntry("supertux2.desktop"), displayName: "SuperTux", categories: ["Game"])
    let editor = AppIdentity(key: .windowClass("Editor"), displayName: "Editor")

    func decider() throws -> ShieldDecider {
        ShieldDecider(minter: minter, categories: try DataDirectory.categoryTable(), language: "en")
    }

    func testAnApplicationIsBlockedByTokenOrByItsIdAndByNothingElse() throws {
        let byToken = StoreSettings(
            owner: "org.example.b", name: "default",
            application: .init(blockedApplications: [Application(token: minter.applicationToken(for: tux))]))
        let byID = StoreSettings(
            owner: "org.example.a", name: "focus",
            application: .init(blockedApplications: [Application(bundleIdentifier: "supertux2.desktop")]))
        let shields = EffectiveShields(stores: [byToken, byID])
        XCTAssertEqual(
            try decider().blockingStores(of: tux, in: shields),
            [
                BlockingStore(owner: "org.example.a", store: "focus"),
                BlockingStore(owner: "org.example.b", store: "default"),
            ])
        XCTAssertEqual(try decider().blockingStores(of: editor, in: shields), [])
        XCTAssertNil(try decider().decide(tux, in: shields), "blocking is not shielding")
        XCTAssertFalse(EffectiveShields(stores: []).blocksAnything)
        XCTAssertTrue(shields.blocksAnything)
    }
}
