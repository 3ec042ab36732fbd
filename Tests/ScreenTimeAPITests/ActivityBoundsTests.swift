import DeviceActivity
import FamilyControls
import Foundation
import ManagedSettings
import ScreenwardCore
import ScreenwardIPC
import XCTest

/// Screenward's own bounds on what one registration may ask of the engine.
final class ActivityBoundsTests: XCTestCase {
    func testOverlongNamesAndTooManyEventsAreRefusedWithAClearMessage() async throws {
        let world = try InProcessWorld(test: self)
        world.use("org.example.greedy")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        let chat = try world.pick(applications: ["chat.desktop"]).applicationTokens
        let schedule = DeviceActivitySchedule(
            intervalStart: DateComponents(hour: 10), intervalEnd: DateComponents(hour: 12), repeats: true)
        let center = DeviceActivityCenter()

        XCTAssertThrowsError(
            try center.startMonitoring(DeviceActivityName(String(repeating: "x", count: 201)), during: schedule)
        ) {
            XCTAssertEqual(($0 as? ServiceError)?.code, .invalidArgument)
        }
        var events: [DeviceActivityEvent.Name: DeviceActivityEvent] = [:]
        for number in 1...257 {
            events[DeviceActivityEvent.Name("e\(number)")] = DeviceActivityEvent(
                applications: chat, threshold: DateComponents(minute: number))
        }
        XCTAssertThrowsError(try center.startMonitoring("many", during: schedule, events: events)) {
            XCTAssertTrue("\($0)".contains("at most 256 events"), "\($0)")
        }
        events.removeValue(forKey: "e257")
        try center.startMonitoring("many", during: schedule, events: events)
        XCTAssertEqual(center.events(for: "many").count, 256)
    }
}
