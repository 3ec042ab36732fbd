@_spi(Screenward) import DeviceActivity
@_spi(Screenward) import FamilyControls
import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardCore
import ScreenwardIPC
import XCTest

/// What the owner calls loosening, which a managed account's daemon lets through only with
/// a guardian's approval: each kind of request, against what the app has now.
final class LooseningTests: XCTestCase {
    private let app = "org.example.homework"

    private func loosening<Request>(
        _ method: ServiceMethod<Request, some Codable>, _ body: Request, in world: InProcessWorld
    )
        throws -> String?
    {
        try world.service.loosening(of: method.requestFrame(id: 1, client: app, body))?.description
    }

    func testStoresTightenFreelyAndLoosenOnlyWhenTheyRestrictLess() async throws {
        let world = try InProcessWorld(test: self)
        world.use(app)
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        let picked = try world.pick(applications: ["chess.desktop", "chat.desktop"]).applicationTokens
        let chess = try world.pick(applications: ["chess.desktop"]).applicationTokens
        func change(_ tokens: Set<ApplicationToken>?) -> StoreChange {
            StoreChange(name: "homework", settings: [.shieldApplications(tokens)])
        }
        XCTAssertNil(try loosening(StoreMethods.change, change(chess), in: world), "a new store only restricts")
        ManagedSettingsStore(named: .init("homework")).shield.applications = chess
        XCTAssertNil(try loosening(StoreMethods.change, change(picked), in: world))
        XCTAssertNil(try loosening(StoreMethods.change, change(chess), in: world), "no change")
        XCTAssertEqual(
            try loosening(StoreMethods.change, change(nil), in: world),
            "lift shield.applications of the settings store homework")
        XCTAssertEqual(
            try loosening(StoreMethods.clear, StoreReference(name: "homework"), in: world),
            "clear the settings store homework")
        XCTAssertNil(try loosening(StoreMethods.clear, StoreReference(name: "other"), in: world), "nothing to clear")
        XCTAssertNil(
            try loosening(StoreMethods.change, change([ApplicationToken(opaqueValue: "forged")]), in: world),
            "a token never given is refused by the request itself")
    }

    func testSchedulesAndSharedValuesAreTheAppsPolicy() async throws {
        let world = try InProcessWorld(test: self)
        world.use(app)
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        let schedule = DeviceActivitySchedule(
            intervalStart: DateComponents(hour: 0, minute: 0), intervalEnd: DateComponents(hour: 23, minute: 59),
            repeats: true)
        let daily = ActivityRegistration(name: .init("daily"), schedule: schedule, events: [:])
        XCTAssertEqual(
            try loosening(ActivityMethods.start, daily, in: world), "start or change its schedule daily")
        try DeviceActivityCenter().startMonitoring(.init("daily"), during: schedule)
        XCTAssertNil(try loosening(ActivityMethods.start, daily, in: world), "the same registration again")
        var shorter = daily
        shorter.schedule = DeviceActivitySchedule(
            intervalStart: DateComponents(hour: 9, minute: 0), intervalEnd: DateComponents(hour: 10, minute: 0),
            repeats: true)
        XCTAssertEqual(
            try loosening(ActivityMethods.start, shorter, in: world), "start or change its schedule daily")
        XCTAssertEqual(try loosening(ActivityMethods.stop, [], in: world), "stop its schedules daily")
        XCTAssertNil(try loosening(ActivityMethods.stop, [.init("weekly")], in: world), "not one of its schedules")

        let write = AppGroupWrite(key: "model", value: Data("chosen".utf8))
        XCTAssertEqual(
            try loosening(AppGroupMethods.write, write, in: world),
            "change the value model it shares with its extensions")
        try AppGroupStorage.shared.set(Data("chosen".utf8), forKey: "model")
        XCTAssertNil(try loosening(AppGroupMethods.write, write, in: world), "the same value")
        XCTAssertNotNil(try loosening(AppGroupMethods.write, AppGroupWrite(key: "model", value: nil), in: world))
    }
}
