@_spi(Screenward) import DeviceActivity
@_spi(Screenward) import FamilyControls
import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardCore
import ScreenwardIPC
import XCTest

/// Apple's limits: 50 named stores per app, 50 tokens per list.
final class StoreLimitTests: XCTestCase {
    func testTheFiftyFirstNamedStoreIsRefused() async throws {
        let world = try InProcessWorld(test: self)
        world.use("org.example.hoarder")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        let chat = try world.pick(applications: ["chat.desktop"]).applicationTokens
        let chess = try world.pick(applications: ["chess.desktop"]).applicationTokens
        for number in 1...50 {
            ManagedSettingsStore(named: .init("store \(number)")).shield.applications = chat
        }
        XCTAssertEqual(world.problems.all, [])
        XCTAssertEqual(world.shieldingStores(ofApplication: "chat.desktop").count, 50)

        let extra = ManagedSettingsStore(named: .init("store 51"))
        extra.shield.applications = chess
        XCTAssertEqual(world.problems(containing: "already uses 50 settings stores").count, 1)
        XCTAssertEqual(world.shieldingStores(ofApplication: "chess.desktop"), [])
        XCTAssertNil(extra.shield.applications)

        // The 50 can still change, and clearing one frees its place.
        ManagedSettingsStore(named: .init("store 7")).shield.applications = chess
        XCTAssertEqual(world.shieldingStores(ofApplication: "chess.desktop"), ["org.example.hoarder/store 7"])
        ManagedSettingsStore(named: .init("store 8")).clearAllSettings()
        extra.shield.applications = chess
        XCTAssertEqual(
            world.shieldingStores(ofApplication: "chess.desktop"),
            ["org.example.hoarder/store 51", "org.example.hoarder/store 7"])
        XCTAssertEqual(world.problems.all.count, 1)
    }

    func testMoreThanFiftyTokensAreRefused() async throws {
        let world = try InProcessWorld(test: self)
        world.use("org.example.lister")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        let apps = try world.pick(applications: (1...51).map { "wmclass:App\($0)" }).applicationTokens
        let domains = try world.pick(webDomains: (1...51).map { "site\($0).example" }).webDomainTokens
        XCTAssertEqual(apps.count, 51)
        let fifty = Set(apps.prefix(50))

        let store = ManagedSettingsStore()
        store.shield.applications = apps
        XCTAssertEqual(world.problems(containing: "shield.applications holds 51 items; at most 50").count, 1)
        XCTAssertNil(store.shield.applications)
        store.shield.webDomains = domains
        XCTAssertEqual(world.problems(containing: "shield.webDomains holds 51 items").count, 1)
        store.application.blockedApplications = Set(apps.map(Application.init(token:)))
        XCTAssertEqual(world.problems(containing: "application.blockedApplications holds 51 items").count, 1)
        XCTAssertEqual(world.shields.stores, [])

        store.shield.applications = fifty
        XCTAssertEqual(store.shield.applications, fifty)
        XCTAssertEqual(world.problems.all.count, 3)

        // The agent checks too, whatever a client sends.
        XCTAssertThrowsError(
            try world.send(StoreMethods.change, StoreChange(name: "raw", settings: [.shieldApplications(apps)]))
        ) { error in
            XCTAssertEqual((error as? ServiceError)?.code, .limitExceeded)
        }
        XCTAssertNil(ManagedSettingsStore(named: .init("raw")).shield.applications)
    }
}
