@_spi(Screenward) import DeviceActivity
@_spi(Screenward) import FamilyControls
import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardCore
import ScreenwardIPC
import XCTest

/// `DeviceActivityCenter`: what is registered comes back as it was given, a second
/// registration replaces the first, and stopping ends a running interval.
final class ActivityCenterTests: XCTestCase {
    func testRegistrationsComeBackWithTheAppsOwnTokens() async throws {
        let world = try InProcessWorld(test: self)
        world.use("org.example.watcher")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        let picked = try world.pick(applications: ["chat.desktop"], categories: ["Game"], webDomains: ["example.com"])
        let schedule = DeviceActivitySchedule(
            intervalStart: at(10), intervalEnd: at(12), repeats: true, warningTime: minutes(5))
        let events: [DeviceActivityEvent.Name: DeviceActivityEvent] = [
            "chat": DeviceActivityEvent(
                applications: picked.applicationTokens, threshold: minutes(20), includesPastActivity: true),
            "rest": DeviceActivityEvent(
                categories: picked.categoryTokens, webDomains: picked.webDomainTokens,
                threshold: DateComponents(hour: 1)),
        ]
        let center = DeviceActivityCenter()
        try center.startMonitoring("mornings", during: schedule, events: events)
        try center.startMonitoring(
            "quiet", during: DeviceActivitySchedule(intervalStart: at(22), intervalEnd: at(7), repeats: false))

        XCTAssertEqual(Set(center.activities), ["mornings", "quiet"])
        XCTAssertEqual(center.schedule(for: "mornings"), schedule)
        XCTAssertEqual(center.events(for: "mornings"), events)
        XCTAssertEqual(
            center.events(for: "mornings")["chat"]?.applications, picked.applicationTokens,
            "the app's tokens, not the device's")
        XCTAssertEqual(center.schedule(for: "quiet")?.repeats, false)
        XCTAssertEqual(center.events(for: "quiet"), [:])
        XCTAssertNil(center.schedule(for: "unknown"))
        XCTAssertEqual(center.events(for: "unknown"), [:])

        world.use("org.example.stranger")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        XCTAssertEqual(DeviceActivityCenter().activities, [], "activities are per app")
        XCTAssertEqual(world.problems.all, [])
    }

    func testRegisteringAgainReplaces() async throws {
        let world = try InProcessWorld(test: self)
        world.use("org.example.watcher")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        let chat = try world.pick(applications: ["chat.desktop"]).applicationTokens
        let center = DeviceActivityCenter()
        try center.startMonitoring(
            "daily", during: DeviceActivitySchedule(intervalStart: at(10), intervalEnd: at(12), repeats: true),
            events: ["chat": DeviceActivityEvent(applications: chat, threshold: minutes(20))])
        let later = DeviceActivitySchedule(
            intervalStart: at(14), intervalEnd: at(18, 30), repeats: false, warningTime: minutes(1))
        let games: [DeviceActivityEvent.Name: DeviceActivityEvent] = [
            "games": DeviceActivityEvent(
                categories: try world.pick(categories: ["Game"]).categoryTokens, threshold: minutes(45))
        ]
        try center.startMonitoring("daily", during: later, events: games)

        XCTAssertEqual(center.activities, ["daily"])
        XCTAssertEqual(center.schedule(for: "daily"), later)
        XCTAssertEqual(center.events(for: "daily"), games)
    }

    func testStoppingEndsRunningIntervals() async throws {
        let world = try InProcessWorld(test: self, start: "2026-11-23 10:30")
        world.use("org.example.watcher")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        let monitor = try world.startMonitor("org.example.watcher")
        let center = DeviceActivityCenter()
        let morning = DeviceActivitySchedule(intervalStart: at(10), intervalEnd: at(12), repeats: true)
        for name in ["a", "b", "c"] { try center.startMonitoring(DeviceActivityName(name), during: morning) }
        try center.startMonitoring(
            "later", during: DeviceActivitySchedule(intervalStart: at(14), intervalEnd: at(16), repeats: true))
        monitor.heard.removeAll()

        world.advance(to: "2026-11-23 10:40")
        center.stopMonitoring(["a"])
        XCTAssertEqual(monitor.lines, ["intervalDidEnd a [11-23 10:00–11-23 12:00] at 11-23 10:40"])
        XCTAssertEqual(Set(center.activities), ["b", "c", "later"])

        monitor.heard.removeAll()
        world.advance(to: "2026-11-23 10:50")
        center.stopMonitoring([])
        XCTAssertEqual(
            monitor.lines.sorted(),
            [
                "intervalDidEnd b [11-23 10:00–11-23 12:00] at 11-23 10:50",
                "intervalDidEnd c [11-23 10:00–11-23 12:00] at 11-23 10:50",
            ], "an interval not yet begun gets no end")
        XCTAssertEqual(center.activities, [])

        world.advance(to: "2026-11-25 00:00")
        XCTAssertEqual(monitor.lines.count, 2, "nothing more once stopped")
        XCTAssertEqual(world.problems.all, [])
    }
}
