@_spi(Screenward) import DeviceActivity
@_spi(Screenward) import FamilyControls
import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardCore
import ScreenwardIPC
import XCTest

/// Activity names are per app: two apps may both monitor "daily", and each app's
/// monitor hears only its own callbacks.
final class MonitorIsolationTests: XCTestCase {
    func testEachAppsMonitorHearsOnlyItsOwnActivities() async throws {
        let world = try InProcessWorld(test: self, start: "2026-11-23 09:00")
        var monitors: [MonitorProcess] = []
        for (app, start) in [("org.example.one", 10), ("org.example.two", 14)] {
            world.use(app)
            try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
            monitors.append(try world.startMonitor(app))
            try DeviceActivityCenter().startMonitoring(
                "daily",
                during: DeviceActivitySchedule(intervalStart: at(start), intervalEnd: at(start + 1), repeats: true))
        }
        world.advance(to: "2026-11-23 11:30")
        world.use("org.example.one")
        DeviceActivityCenter().stopMonitoring()
        world.use("org.example.two")
        XCTAssertEqual(DeviceActivityCenter().activities, ["daily"], "the other app's stop is not this app's")

        world.advance(to: "2026-11-24 00:00")
        XCTAssertEqual(
            monitors[0].lines,
            [
                "intervalDidStart daily [11-23 10:00–11-23 11:00] at 11-23 10:00",
                "intervalDidEnd daily [11-23 10:00–11-23 11:00] at 11-23 11:00",
            ])
        XCTAssertEqual(
            monitors[1].lines,
            [
                "intervalDidStart daily [11-23 14:00–11-23 15:00] at 11-23 14:00",
                "intervalDidEnd daily [11-23 14:00–11-23 15:00] at 11-23 15:00",
            ])
        XCTAssertEqual(world.problems.all, [])
    }
}
