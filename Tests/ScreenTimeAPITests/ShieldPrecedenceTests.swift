@_spi(Screenward) import DeviceActivity
@_spi(Screenward) import FamilyControls
import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardCore
import ScreenwardIPC
import XCTest

/// The effective state comes from every store of every app: the most restrictive
/// setting wins, and an exception only narrows the store it is written in.
/// (chat.desktop is Social, chess.desktop is Game, editor.desktop is Development.)
final class ShieldPrecedenceTests: XCTestCase {
    func testACategoryShieldHoldsWhateverAnotherStoreOfTheAppSays() async throws {
        let world = try InProcessWorld(test: self)
        world.use("org.example.app")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        let social = try world.pick(categories: ["Social"]).categoryTokens
        let chat = try world.pick(applications: ["chat.desktop"]).applicationTokens
        let chess = try world.pick(applications: ["chess.desktop"]).applicationTokens

        ManagedSettingsStore(named: .init("social")).shield.applicationCategories = .specific(social)
        let everything = ManagedSettingsStore(named: .init("everything"))
        everything.shield.applicationCategories = .all(except: chat)
        let lenient = ManagedSettingsStore(named: .init("lenient"))
        lenient.shield.applicationCategories = .specific(social, except: chat)
        lenient.shield.applications = []

        XCTAssertEqual(world.shieldingStores(ofApplication: "chat.desktop"), ["org.example.app/social"])
        XCTAssertEqual(world.shieldingStores(ofApplication: "chess.desktop"), ["org.example.app/everything"])
        XCTAssertEqual(world.shieldingStores(ofApplication: "editor.desktop"), ["org.example.app/everything"])

        // `.all(except:)` spares its exceptions when no other store covers them.
        ManagedSettingsStore(named: .init("social")).shield.applicationCategories =
            ShieldSettings.ActivityCategoryPolicy<Application>.none
        XCTAssertEqual(world.shieldingStores(ofApplication: "chat.desktop"), [])
        everything.shield.applicationCategories = .all(except: chat.union(chess))
        XCTAssertEqual(world.shieldingStores(ofApplication: "chess.desktop"), [])
        XCTAssertEqual(world.shieldingStores(ofApplication: "editor.desktop"), ["org.example.app/everything"])
        XCTAssertEqual(world.problems.all, [])
    }

    func testAnotherAppsStoreCannotLiftAShield() async throws {
        let world = try InProcessWorld(test: self)
        world.use("org.example.strict")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        ManagedSettingsStore().shield.applicationCategories = .specific(
            try world.pick(categories: ["Social"]).categoryTokens)
        ManagedSettingsStore(named: .init("chess")).shield.applications = try world.pick(applications: ["chess.desktop"]
        ).applicationTokens

        world.use("org.example.lenient")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        let picked = try world.pick(applications: ["chat.desktop", "chess.desktop"], categories: ["Social", "Game"])
        let store = ManagedSettingsStore()
        store.shield.applicationCategories = .specific(picked.categoryTokens, except: picked.applicationTokens)
        store.shield.applications = []

        XCTAssertEqual(world.shieldingStores(ofApplication: "chat.desktop"), ["org.example.strict/default"])
        XCTAssertEqual(world.shieldingStores(ofApplication: "chess.desktop"), ["org.example.strict/chess"])
        XCTAssertEqual(world.shieldingStores(ofApplication: "editor.desktop"), [])

        store.shield.applicationCategories = .all()
        XCTAssertEqual(
            world.shieldingStores(ofApplication: "chat.desktop"),
            ["org.example.lenient/default", "org.example.strict/default"])
        XCTAssertEqual(world.shieldingStores(ofApplication: "editor.desktop"), ["org.example.lenient/default"])
    }

    func testSpecificExceptionsNarrowOnlyTheirOwnStore() async throws {
        let world = try InProcessWorld(test: self)
        world.use("org.example.app")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        let games = try world.pick(categories: ["Game"]).categoryTokens
        let chess = try world.pick(applications: ["chess.desktop"]).applicationTokens

        ManagedSettingsStore(named: .init("games")).shield.applicationCategories = .specific(games, except: chess)
        XCTAssertEqual(
            world.shieldingStores(ofApplication: "chess.desktop"), [], "excepted in the only store that covers it")

        ManagedSettingsStore(named: .init("listed")).shield.applications = chess
        XCTAssertEqual(world.shieldingStores(ofApplication: "chess.desktop"), ["org.example.app/listed"])
        ManagedSettingsStore(named: .init("also games")).shield.applicationCategories = .specific(games)
        XCTAssertEqual(
            world.shieldingStores(ofApplication: "chess.desktop"),
            ["org.example.app/also games", "org.example.app/listed"])
        XCTAssertEqual(world.problems.all, [])
    }
}
