@_spi(Screenward) import DeviceActivity
@_spi(Screenward) import FamilyControls
import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardCore
import ScreenwardIPC
import XCTest

/// Callbacks due while no monitor runs wait for the next one to attach (marked late
/// when they are), and a callback acknowledged once is never delivered again.
final class MonitorDeliveryTests: XCTestCase {
    func testCallbacksDueWithoutAMonitorComeWhenOneAttaches() async throws {
        let world = try InProcessWorld(test: self, start: "2026-11-23 09:00")
        world.use("org.example.watcher")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        try DeviceActivityCenter().startMonitoring(
            "daily", during: DeviceActivitySchedule(intervalStart: at(10), intervalEnd: at(12), repeats: true))
        world.advance(to: "2026-11-23 13:00")
        XCTAssertEqual(world.callbacks.all.count, 2, "the engine fired on time, with no monitor to hear it")

        let first = try world.startMonitor("org.example.watcher")
        XCTAssertEqual(
            first.lines,
            [
                "intervalDidStart daily [11-23 10:00–11-23 12:00] at 11-23 10:00 late",
                "intervalDidEnd daily [11-23 10:00–11-23 12:00] at 11-23 12:00 late",
            ])
        for heard in first.heard.all {
            XCTAssertEqual(
                heard.context.deliveredAt, InProcessWorld.date("2026-11-23 13:00"), "sent when the monitor attached")
        }
        XCTAssertEqual(try world.ledger.outbox(client: "org.example.watcher").count, 0)

        // A monitor that attaches next hears only what came after.
        first.exit()
        let second = try world.startMonitor("org.example.watcher")
        XCTAssertEqual(second.lines, [])
        world.advance(to: "2026-11-24 10:00")
        XCTAssertEqual(second.lines, ["intervalDidStart daily [11-24 10:00–11-24 12:00] at 11-24 10:00"])
        XCTAssertEqual(first.lines.count, 2)
    }

    func testAMonitorThatComesBackGetsWhatItMissedOnce() async throws {
        let world = try InProcessWorld(test: self, start: "2026-11-23 09:00")
        world.use("org.example.watcher")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        let first = try world.startMonitor("org.example.watcher")
        try DeviceActivityCenter().startMonitoring(
            "daily", during: DeviceActivitySchedule(intervalStart: at(10), intervalEnd: at(12), repeats: true))
        world.advance(to: "2026-11-23 11:00")
        XCTAssertEqual(first.lines, ["intervalDidStart daily [11-23 10:00–11-23 12:00] at 11-23 10:00"])

        first.exit()
        world.advance(to: "2026-11-23 12:00")
        let second = try world.startMonitor("org.example.watcher")
        XCTAssertEqual(
            second.lines, ["intervalDidEnd daily [11-23 10:00–11-23 12:00] at 11-23 12:00"], "on time: not late")
        world.advance(to: "2026-11-23 12:30")
        let third = try world.startMonitor("org.example.watcher")
        XCTAssertEqual(third.lines, [])
        XCTAssertEqual(second.lines.count, 1)
    }
}
