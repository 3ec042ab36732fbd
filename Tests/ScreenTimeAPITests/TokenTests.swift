@_spi(Screenward) import DeviceActivity
@_spi(Screenward) import FamilyControls
import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardCore
import ScreenwardIPC
import XCTest

/// Tokens are per app, opaque and Codable; an app can only use its own.
final class TokenTests: XCTestCase {
    func testTwoAppsHoldDifferentTokensForTheSameItems() async throws {
        let world = try InProcessWorld(test: self)
        var selections: [FamilyActivitySelection] = []
        for app in ["org.example.one", "org.example.two"] {
            world.use(app)
            try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
            selections.append(
                try world.pick(applications: ["chat.desktop"], categories: ["Social"], webDomains: ["example.com"]))
        }
        let (one, two) = (selections[0], selections[1])
        XCTAssertEqual(one.applicationTokens.count, 1)
        XCTAssertEqual(one.categoryTokens.count, 1)
        XCTAssertEqual(one.webDomainTokens.count, 1)
        XCTAssertTrue(one.applicationTokens.isDisjoint(with: two.applicationTokens))
        XCTAssertTrue(one.categoryTokens.isDisjoint(with: two.categoryTokens))
        XCTAssertTrue(one.webDomainTokens.isDisjoint(with: two.webDomainTokens))
        XCTAssertFalse(
            one.applicationTokens.contains(world.applicationToken("chat.desktop")), "not the device-wide token")
        XCTAssertFalse(one.categoryTokens.contains(world.categoryToken("Social")))
    }

    func testSelectionsAndTokensRoundTripThroughJSON() async throws {
        let world = try InProcessWorld(test: self)
        world.use("org.example.keeper")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        var picked = try world.pick(
            applications: ["chat.desktop", "chess.desktop"], categories: ["Game"], webDomains: ["news.example.org"])
        picked.includeEntireCategory = true

        let data = try JSONEncoder().encode(picked)
        let restored = try JSONDecoder().decode(FamilyActivitySelection.self, from: data)
        XCTAssertEqual(restored, picked)
        XCTAssertTrue(restored.includeEntireCategory)
        XCTAssertEqual(restored.applicationTokens.count, 2)

        let token = try XCTUnwrap(picked.webDomainTokens.first)
        XCTAssertEqual(try JSONDecoder().decode(WebDomainToken.self, from: JSONEncoder().encode(token)), token)
        XCTAssertThrowsError(try JSONDecoder().decode(ApplicationToken.self, from: Data(#""not a token!""#.utf8)))

        // Tokens kept on disk still work after a restart of the app.
        let store = ManagedSettingsStore()
        store.shield.applications = restored.applicationTokens
        store.shield.webDomains = restored.webDomainTokens
        XCTAssertEqual(world.shieldingStores(ofApplication: "chat.desktop"), ["org.example.keeper/default"])
        XCTAssertEqual(world.shieldingStores(ofApplication: "chess.desktop"), ["org.example.keeper/default"])
        XCTAssertEqual(world.shieldingStores(ofWebDomain: "news.example.org"), ["org.example.keeper/default"])
        XCTAssertEqual(world.problems.all, [])
    }

    func testAnotherAppsTokenIsRefused() async throws {
        let world = try InProcessWorld(test: self)
        world.use("org.example.owner")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        let theirs = try world.pick(applications: ["chat.desktop"], categories: ["Social"])

        world.use("org.example.thief")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        let store = ManagedSettingsStore()
        store.shield.applications = theirs.applicationTokens
        store.shield.applicationCategories = .specific(theirs.categoryTokens)
        XCTAssertEqual(world.problems(containing: "issued to another app").count, 2)
        XCTAssertEqual(store.shield, ShieldSettings())
        XCTAssertEqual(world.shieldingStores(ofApplication: "chat.desktop"), [])

        // Nor can it watch another app's usage.
        let event = DeviceActivityEvent(applications: theirs.applicationTokens, threshold: minutes(5))
        let schedule = DeviceActivitySchedule(intervalStart: at(10), intervalEnd: at(12), repeats: true)
        XCTAssertThrowsError(
            try DeviceActivityCenter().startMonitoring("spy", during: schedule, events: ["chat": event])
        ) { error in
            XCTAssertEqual((error as? ServiceError)?.code, .invalidArgument)
        }
        XCTAssertEqual(DeviceActivityCenter().activities, [])
    }
}
