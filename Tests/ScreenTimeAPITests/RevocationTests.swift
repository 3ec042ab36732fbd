@_spi(Screenward) import DeviceActivity
@_spi(Screenward) import FamilyControls
import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardCore
import ScreenwardIPC
import XCTest

/// `revokeAuthorization` voids the app's tokens, removes its stores and stops its
/// activities; other apps keep theirs.
final class RevocationTests: XCTestCase {
    func testRevokingRemovesStoresAndVoidsTokens() async throws {
        let world = try InProcessWorld(test: self)
        world.use("org.example.other")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        ManagedSettingsStore().shield.applications = try world.pick(applications: ["chess.desktop"]).applicationTokens

        world.use("org.example.leaving")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        let old = try world.pick(applications: ["chat.desktop"])
        ManagedSettingsStore(named: .init("chat")).shield.applications = old.applicationTokens
        XCTAssertEqual(world.shieldingStores(ofApplication: "chat.desktop"), ["org.example.leaving/chat"])

        try await AuthorizationCenter.shared.revokeAuthorization()
        XCTAssertEqual(AuthorizationCenter.shared.authorizationStatus, .notDetermined)
        XCTAssertEqual(world.shieldingStores(ofApplication: "chat.desktop"), [], "the app's stores went with it")
        XCTAssertEqual(
            world.shieldingStores(ofApplication: "chess.desktop"), ["org.example.other/default"],
            "other apps keep theirs")

        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        XCTAssertEqual(ManagedSettingsStore(named: .init("chat")).shield, ShieldSettings(), "a new grant starts empty")
        ManagedSettingsStore(named: .init("chat")).shield.applications = old.applicationTokens
        XCTAssertEqual(world.problems(containing: "before the app's authorization was revoked").count, 1)
        XCTAssertEqual(world.shieldingStores(ofApplication: "chat.desktop"), [], "an old token is refused")

        let new = try world.pick(applications: ["chat.desktop"])
        XCTAssertTrue(new.applicationTokens.isDisjoint(with: old.applicationTokens), "a new grant, new tokens")
        ManagedSettingsStore(named: .init("chat")).shield.applications = new.applicationTokens
        XCTAssertEqual(world.shieldingStores(ofApplication: "chat.desktop"), ["org.example.leaving/chat"])
    }

    func testRevokingStopsActivitiesAndSilencesTheMonitor() async throws {
        let world = try InProcessWorld(test: self, start: "2026-11-23 10:30")
        world.use("org.example.leaving")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        let monitor = try world.startMonitor("org.example.leaving")
        let schedule = DeviceActivitySchedule(
            intervalStart: at(10), intervalEnd: at(12), repeats: true, warningTime: minutes(10))
        try DeviceActivityCenter().startMonitoring("daily", during: schedule)
        XCTAssertEqual(monitor.lines, ["intervalDidStart daily [11-23 10:00–11-23 12:00] at 11-23 10:30"])

        try await AuthorizationCenter.shared.revokeAuthorization()
        world.advance(to: "2026-11-25 13:00")
        XCTAssertEqual(monitor.lines.count, 1, "a revoked app is told nothing more, not even the end")
        XCTAssertEqual(world.callbacks.all.count, 1)

        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        XCTAssertEqual(DeviceActivityCenter().activities, [])
        world.advance(to: "2026-11-26 13:00")
        XCTAssertEqual(monitor.lines.count, 1)
    }

    func testCallbacksOwedToARevokedAppAreDropped() async throws {
        let world = try InProcessWorld(test: self, start: "2026-11-23 09:00")
        world.use("org.example.leaving")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        let schedule = DeviceActivitySchedule(intervalStart: at(10), intervalEnd: at(12), repeats: true)
        try DeviceActivityCenter().startMonitoring("daily", during: schedule)
        world.advance(to: "2026-11-23 13:00")
        XCTAssertEqual(
            world.callbacks.all.map(\.kind), [.intervalDidStart, .intervalDidEnd], "due while no monitor ran")

        try await AuthorizationCenter.shared.revokeAuthorization()
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        let monitor = try world.startMonitor("org.example.leaving")
        XCTAssertEqual(monitor.lines, [], "what was owed before the revocation is gone")
    }
}
