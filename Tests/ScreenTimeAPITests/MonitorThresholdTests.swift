@_spi(Screenward) import DeviceActivity
@_spi(Screenward) import FamilyControls
import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardCore
import ScreenwardIPC
import XCTest

/// Thresholds count focused time within the interval: from its start with
/// `includesPastActivity`, else from the registration; the callback comes at the
/// crossing instant, once.
final class MonitorThresholdTests: XCTestCase {
    func testPastActivityCountsOnlyWhenAskedFor() async throws {
        let world = try InProcessWorld(test: self, start: "2026-11-23 10:30")
        world.use("org.example.watcher")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        let monitor = try world.startMonitor("org.example.watcher")
        let chat = try world.pick(applications: ["chat.desktop"]).applicationTokens
        let social = try world.pick(categories: ["Social"]).categoryTokens
        let (device, socialDevice) = (world.applicationToken("chat.desktop"), world.categoryToken("Social"))
        // 20 minutes of chat before the registration.
        world.focus.focus(device, categories: [socialDevice], at: InProcessWorld.date("2026-11-23 10:00"))
        world.focus.unfocus(at: InProcessWorld.date("2026-11-23 10:20"))

        try DeviceActivityCenter().startMonitoring(
            "daily", during: DeviceActivitySchedule(intervalStart: at(10), intervalEnd: at(12), repeats: true),
            events: [
                "early": DeviceActivityEvent(applications: chat, threshold: minutes(15), includesPastActivity: true),
                "past": DeviceActivityEvent(applications: chat, threshold: minutes(25), includesPastActivity: true),
                "social": DeviceActivityEvent(categories: social, threshold: minutes(22), includesPastActivity: true),
                "fresh": DeviceActivityEvent(applications: chat, threshold: minutes(25)),
            ])
        XCTAssertEqual(
            monitor.lines,
            [
                "intervalDidStart daily [11-23 10:00–11-23 12:00] at 11-23 10:30",
                "eventDidReachThreshold(early) daily [11-23 10:00–11-23 12:00] at 11-23 10:30",
            ], "a threshold crossed before the registration is due at it")

        world.advance(to: "2026-11-23 10:40")
        world.focus.focus(device, categories: [socialDevice], at: InProcessWorld.date("2026-11-23 10:40"))
        world.advance(to: "2026-11-23 11:30")
        XCTAssertEqual(
            Array(monitor.lines.dropFirst(2)),
            [
                "eventDidReachThreshold(social) daily [11-23 10:00–11-23 12:00] at 11-23 10:42",
                "eventDidReachThreshold(past) daily [11-23 10:00–11-23 12:00] at 11-23 10:45",
                "eventDidReachThreshold(fresh) daily [11-23 10:00–11-23 12:00] at 11-23 11:05",
            ])
    }

    func testTheCallbackComesAtTheCrossingInstant() async throws {
        let world = try InProcessWorld(test: self, start: "2026-11-23 10:00")
        world.use("org.example.watcher")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        let monitor = try world.startMonitor("org.example.watcher")
        let chat = try world.pick(applications: ["chat.desktop"]).applicationTokens
        try DeviceActivityCenter().startMonitoring(
            "daily", during: DeviceActivitySchedule(intervalStart: at(10), intervalEnd: at(12), repeats: true),
            events: ["chat": DeviceActivityEvent(applications: chat, threshold: DateComponents(minute: 10, second: 30))]
        )

        // Focus comes and goes: 4 minutes, a pause, then on until the threshold.
        let device = world.applicationToken("chat.desktop")
        let start = InProcessWorld.date("2026-11-23 10:05")
        world.advance(to: start)
        world.focus.focus(device, at: start)
        world.advance(to: start.addingTimeInterval(240))
        world.focus.unfocus(at: start.addingTimeInterval(240))
        world.advance(to: start.addingTimeInterval(600))
        world.focus.focus(device, at: start.addingTimeInterval(600))
        world.advance(to: "2026-11-23 11:00")

        let crossing = start.addingTimeInterval(600 + 390)
        let reached = monitor.heard.all.filter { $0.kind == "eventDidReachThreshold" }
        XCTAssertEqual(reached.count, 1)
        let context = try XCTUnwrap(reached.first?.context)
        XCTAssertEqual(context.scheduledAt.timeIntervalSince(crossing), 0, accuracy: 0.001)
        XCTAssertEqual(context.deliveredAt.timeIntervalSince(crossing), 0, accuracy: 0.001)
        XCTAssertFalse(context.isLate)
        XCTAssertEqual(
            reached.first?.line, "eventDidReachThreshold(chat) daily [11-23 10:00–11-23 12:00] at 11-23 10:21:30")
    }
}
