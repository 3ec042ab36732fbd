@_spi(Screenward) import DeviceActivity
@_spi(Screenward) import FamilyControls
import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardCore
import ScreenwardIPC
import XCTest

/// A `DeviceActivityMonitor` gets each of the six callbacks once per interval, on
/// time, with the interval it belongs to.
final class MonitorCallbackTests: XCTestCase {
    func testAllSixCallbacksComeOncePerIntervalOnTime() async throws {
        let world = try InProcessWorld(test: self, start: "2026-11-23 09:00")
        world.use("org.example.watcher")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        let monitor = try world.startMonitor("org.example.watcher")
        let chat = try world.pick(applications: ["chat.desktop"]).applicationTokens
        // Chat has the focus from 10:00 on, day and night.
        world.focus.focus(world.applicationToken("chat.desktop"), at: InProcessWorld.date("2026-11-23 10:00"))

        try DeviceActivityCenter().startMonitoring(
            "daily",
            during: DeviceActivitySchedule(
                intervalStart: at(10), intervalEnd: at(12), repeats: true, warningTime: minutes(15)),
            events: ["chat": DeviceActivityEvent(applications: chat, threshold: minutes(30))])
        world.advance(to: "2026-11-24 13:00")

        let expected = ["11-23", "11-24"].flatMap { day in
            let interval = "[\(day) 10:00–\(day) 12:00]"
            return [
                "intervalWillStartWarning daily \(interval) at \(day) 09:45",
                "intervalDidStart daily \(interval) at \(day) 10:00",
                "eventWillReachThresholdWarning(chat) daily \(interval) at \(day) 10:15",
                "eventDidReachThreshold(chat) daily \(interval) at \(day) 10:30",
                "intervalWillEndWarning daily \(interval) at \(day) 11:45",
                "intervalDidEnd daily \(interval) at \(day) 12:00",
            ]
        }
        XCTAssertEqual(monitor.lines, expected)
        for heard in monitor.heard.all {
            XCTAssertEqual(
                heard.context.deliveredAt.timeIntervalSince(heard.context.scheduledAt), 0, accuracy: 0.001, heard.line)
            XCTAssertFalse(heard.context.isLate, heard.line)
        }
        XCTAssertEqual(
            try world.ledger.outbox(client: "org.example.watcher").count, 0, "every callback was acknowledged")
        XCTAssertEqual(world.problems.all, [])
    }

    func testRegisteringInsideARunningIntervalStartsItAtOnce() async throws {
        let world = try InProcessWorld(test: self, start: "2026-11-23 10:20")
        world.use("org.example.watcher")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        let monitor = try world.startMonitor("org.example.watcher")

        let schedule = DeviceActivitySchedule(
            intervalStart: at(10), intervalEnd: at(12), repeats: true, warningTime: minutes(15))
        try DeviceActivityCenter().startMonitoring("daily", during: schedule)
        XCTAssertEqual(
            monitor.lines, ["intervalDidStart daily [11-23 10:00–11-23 12:00] at 11-23 10:20"],
            "before startMonitoring returned")

        world.advance(to: "2026-11-23 12:00")
        XCTAssertEqual(
            monitor.lines,
            [
                "intervalDidStart daily [11-23 10:00–11-23 12:00] at 11-23 10:20",
                "intervalWillEndWarning daily [11-23 10:00–11-23 12:00] at 11-23 11:45",
                "intervalDidEnd daily [11-23 10:00–11-23 12:00] at 11-23 12:00",
            ])
    }

    func testRegisteringAgainInsideTheIntervalEndsTheOldOneAndStartsTheNew() async throws {
        let world = try InProcessWorld(test: self, start: "2026-11-23 09:00")
        world.use("org.example.watcher")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        let monitor = try world.startMonitor("org.example.watcher")
        let center = DeviceActivityCenter()
        try center.startMonitoring(
            "daily", during: DeviceActivitySchedule(intervalStart: at(10), intervalEnd: at(12), repeats: true))
        world.advance(to: "2026-11-23 10:30")
        try center.startMonitoring(
            "daily", during: DeviceActivitySchedule(intervalStart: at(10), intervalEnd: at(13), repeats: true))
        world.advance(to: "2026-11-23 14:00")
        XCTAssertEqual(
            monitor.lines,
            [
                "intervalDidStart daily [11-23 10:00–11-23 12:00] at 11-23 10:00",
                "intervalDidEnd daily [11-23 10:00–11-23 12:00] at 11-23 10:30",
                "intervalDidStart daily [11-23 10:00–11-23 13:00] at 11-23 10:30",
                "intervalDidEnd daily [11-23 10:00–11-23 13:00] at 11-23 13:00",
            ])
    }
}
