@_spi(Screenward) import DeviceActivity
@_spi(Screenward) import FamilyControls
import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardCore
import ScreenwardIPC
import XCTest

/// `ManagedSettingsStore` as an app uses it: named stores, settings removed by nil,
/// `clearAllSettings`, and reading back the app's own tokens.
final class StoreTests: XCTestCase {
    func testDefaultAndNamedStoresAreKeptApart() async throws {
        let world = try InProcessWorld(test: self)
        world.use("org.example.app")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        let picked = try world.pick(applications: ["chat.desktop"], categories: ["Game"], webDomains: ["example.com"])

        let standard = ManagedSettingsStore()
        let games = ManagedSettingsStore(named: .init("games"))
        XCTAssertEqual(standard.name, .default)
        standard.shield.applications = picked.applicationTokens
        standard.shield.webDomains = picked.webDomainTokens
        games.shield.applicationCategories = .specific(picked.categoryTokens)

        XCTAssertEqual(world.shieldingStores(ofApplication: "chat.desktop"), ["org.example.app/default"])
        XCTAssertEqual(world.shieldingStores(ofApplication: "chess.desktop"), ["org.example.app/games"])
        XCTAssertEqual(world.shieldingStores(ofWebDomain: "example.com"), ["org.example.app/default"])
        XCTAssertNil(standard.shield.applicationCategories)
        XCTAssertNil(games.shield.applications)

        // nil removes one setting and leaves the others.
        standard.shield.applications = nil
        XCTAssertNil(standard.shield.applications)
        XCTAssertEqual(standard.shield.webDomains, picked.webDomainTokens)
        XCTAssertEqual(world.shieldingStores(ofApplication: "chat.desktop"), [])
        XCTAssertEqual(world.shieldingStores(ofWebDomain: "example.com"), ["org.example.app/default"])

        games.clearAllSettings()
        XCTAssertEqual(games.shield, ShieldSettings())
        XCTAssertEqual(games.application, ApplicationSettings())
        XCTAssertEqual(world.shieldingStores(ofApplication: "chess.desktop"), [])
        XCTAssertEqual(world.shields.stores.map(\.name), ["default"], "an emptied store is gone")
        XCTAssertEqual(world.problems.all, [])
    }

    func testReadingBackGivesTheAppsOwnTokens() async throws {
        let world = try InProcessWorld(test: self)
        world.use("org.example.reader")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        let picked = try world.pick(applications: ["chat.desktop", "editor.desktop"], categories: ["Social", "Game"], webDomains: ["example.com"])
        let chat = try XCTUnwrap(try world.pick(applications: ["chat.desktop"]).applicationTokens.first)

        let store = ManagedSettingsStore(named: .init("everything"))
        store.shield.applications = picked.applicationTokens
        store.shield.applicationCategories = .specific(picked.categoryTokens, except: [chat])
        store.shield.webDomainCategories = .all(except: picked.webDomainTokens)
        store.application.blockedApplications = [Application(token: chat)]

        let read = ManagedSettingsStore(named: .init("everything"))
        XCTAssertEqual(read.shield.applications, picked.applicationTokens)
        XCTAssertEqual(read.shield.applicationCategories, .specific(picked.categoryTokens, except: [chat]))
        XCTAssertEqual(read.shield.webDomainCategories, .all(except: picked.webDomainTokens))
        XCTAssertEqual(read.application.blockedApplications, [Application(token: chat)])
        XCTAssertNil(read.shield.webDomains)
        XCTAssertEqual(world.problems.all, [])
    }
}
