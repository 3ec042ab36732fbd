@_spi(Screenward) import DeviceActivity
@_spi(Screenward) import FamilyControls
import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardCore
import ScreenwardIPC
import XCTest

/// `startMonitoring`'s errors, with Apple's limits.
final class ActivityLimitTests: XCTestCase {
    typealias MonitoringError = DeviceActivityCenter.MonitoringError

    private func authorizedWorld() async throws -> InProcessWorld {
        let world = try InProcessWorld(test: self)
        world.use("org.example.busy")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        return world
    }

    private func assertRefused(
        _ schedule: DeviceActivitySchedule, events: [DeviceActivityEvent.Name: DeviceActivityEvent] = [:],
        with expected: MonitoringError,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertThrowsError(
            try DeviceActivityCenter().startMonitoring("refused", during: schedule, events: events), file: file,
            line: line
        ) {
            XCTAssertEqual($0 as? MonitoringError, expected, file: file, line: line)
        }
        // The agent refuses it as well, to a client that skips the API's own check.
        let registration = ActivityRegistration(name: "refused", schedule: schedule, events: events)
        XCTAssertThrowsError(try ScreenwardApp.client.call(ActivityMethods.start, registration), file: file, line: line)
        {
            XCTAssertEqual(($0 as? ServiceError)?.code, ActivityLimitTests.code(of: expected), file: file, line: line)
        }
        XCTAssertFalse(DeviceActivityCenter().activities.contains("refused"), file: file, line: line)
    }

    static func code(of error: MonitoringError) -> ServiceError.Code {
        switch error {
        case .excessiveActivities: .limitExceeded
        case .intervalTooShort: .intervalTooShort
        case .intervalTooLong: .intervalTooLong
        case .invalidDateComponents: .invalidDateComponents
        case .unauthorized: .unauthorized
        }
    }

    func testTheTwentyFirstActivityIsRefused() async throws {
        let world = try await authorizedWorld()
        let center = DeviceActivityCenter()
        let schedule = DeviceActivitySchedule(intervalStart: at(10), intervalEnd: at(12), repeats: true)
        for number in 1...20 { try center.startMonitoring(DeviceActivityName("activity \(number)"), during: schedule) }
        XCTAssertEqual(center.activities.count, 20)

        assertRefused(schedule, with: .excessiveActivities)
        // Replacing one of the twenty is no new activity.
        let evening = DeviceActivitySchedule(intervalStart: at(18), intervalEnd: at(20), repeats: true)
        try center.startMonitoring("activity 7", during: evening)
        XCTAssertEqual(center.schedule(for: "activity 7"), evening)
        center.stopMonitoring(["activity 3"])
        try center.startMonitoring("activity 21", during: schedule)
        XCTAssertEqual(center.activities.count, 20)
        XCTAssertEqual(world.problems.all, [])
    }

    func testIntervalsMustLastFifteenMinutesToAWeek() async throws {
        _ = try await authorizedWorld()
        assertRefused(
            DeviceActivitySchedule(intervalStart: at(10), intervalEnd: at(10, 14), repeats: true),
            with: .intervalTooShort)
        try DeviceActivityCenter().startMonitoring(
            "fifteen", during: DeviceActivitySchedule(intervalStart: at(10), intervalEnd: at(10, 15), repeats: true))

        let monthly = DeviceActivitySchedule(
            intervalStart: DateComponents(day: 1), intervalEnd: DateComponents(day: 15), repeats: true)
        assertRefused(monthly, with: .intervalTooLong)
        let week = DeviceActivitySchedule(
            intervalStart: DateComponents(hour: 9, weekday: 2), intervalEnd: DateComponents(hour: 9, weekday: 2),
            repeats: true)
        try DeviceActivityCenter().startMonitoring("week", during: week)
        XCTAssertEqual(Set(DeviceActivityCenter().activities), ["fifteen", "week"])
    }

    func testImpossibleComponentsAreRefused() async throws {
        let world = try await authorizedWorld()
        assertRefused(
            DeviceActivitySchedule(intervalStart: at(25), intervalEnd: at(26), repeats: true),
            with: .invalidDateComponents)
        assertRefused(
            DeviceActivitySchedule(intervalStart: at(10, 60), intervalEnd: at(12), repeats: true),
            with: .invalidDateComponents)
        assertRefused(
            DeviceActivitySchedule(
                intervalStart: DateComponents(month: 2, day: 30), intervalEnd: DateComponents(month: 3, day: 2),
                repeats: true),
            with: .invalidDateComponents)
        let chat = try world.pick(applications: ["chat.desktop"]).applicationTokens
        let daily = DeviceActivitySchedule(intervalStart: at(10), intervalEnd: at(12), repeats: true)
        assertRefused(
            daily, events: ["zero": DeviceActivityEvent(applications: chat, threshold: minutes(0))],
            with: .invalidDateComponents)
        assertRefused(
            daily, events: ["none": DeviceActivityEvent(applications: chat, threshold: DateComponents())],
            with: .invalidDateComponents)
        assertRefused(
            DeviceActivitySchedule(intervalStart: at(10), intervalEnd: at(12), repeats: true, warningTime: minutes(-5)),
            with: .invalidDateComponents)
        XCTAssertEqual(DeviceActivityCenter().activities, [])
    }
}
