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
        let picked = try world.pick(
            applications: ["chat.desktop", "editor.desktop"], categories: ["Social", "Game"],
            webDomains: ["example.com"])
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

    /// `application.denyAppInstallation` is child mode's (on for a managed user); a person's
    /// own agent refuses it with a message that says so, and keeps the store as it was.
    func testDenyingAppInstallationIsRefusedInAPersonsOwnAccount() async throws {
        let world = try InProcessWorld(test: self)
        world.use("org.example.strict")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        let store = ManagedSettingsStore(named: .init("installs"))
        store.application.denyAppInstallation = true
        XCTAssertEqual(
            world.problems(containing: "denyAppInstallation is enforced for managed users (child mode) only").count, 1)
        XCTAssertNil(store.application.denyAppInstallation)
        // Saying it is off (as it is here) is accepted, and read back.
        store.application.denyAppInstallation = false
        XCTAssertEqual(store.application.denyAppInstallation, false)
        XCTAssertEqual(world.problems.all.count, 1)
    }

    func testAnyStoreDenyingAppInstallationWinsOverOneAllowingIt() {
        func stores(_ values: [Bool?]) -> EffectiveShields {
            EffectiveShields(
                stores: values.enumerated().map {
                    StoreSettings(
                        owner: "app\($0.offset)", name: "default", application: .init(denyAppInstallation: $0.element))
                })
        }
        XCTAssertTrue(stores([]).deniesAppInstallation(default: true), "a managed user's default")
        XCTAssertFalse(stores([]).deniesAppInstallation(default: false))
        XCTAssertFalse(stores([false, nil]).deniesAppInstallation(default: true), "turned off by an app's store")
        XCTAssertTrue(stores([false, true]).deniesAppInstallation(default: true), "the most restrictive store wins")
        XCTAssertTrue(stores([nil, true]).deniesAppInstallation(default: false))
    }
}
