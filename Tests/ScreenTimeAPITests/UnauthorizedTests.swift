@_spi(Screenward) import DeviceActivity
@_spi(Screenward) import FamilyControls
import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardCore
import ScreenwardIPC
import XCTest

/// An app that never asked for authorization gets nothing done: setters report to
/// `ScreenwardApp.problemHandler`, calls that throw in Apple's API throw `unauthorized`.
final class UnauthorizedTests: XCTestCase {
    func testStoresRefuseAnUnauthorisedApp() throws {
        let world = try InProcessWorld(test: self)
        world.use("org.example.intruder")
        let store = ManagedSettingsStore(named: .init("block"))
        store.shield.applicationCategories = .all()
        XCTAssertEqual(world.problems(containing: "could not change the settings store \"block\"").count, 1)
        XCTAssertFalse(world.problems.all.isEmpty)
        XCTAssertEqual(
            world.problems(containing: "org.example.intruder is not authorised").count, world.problems.all.count)

        world.problems.removeAll()
        XCTAssertEqual(store.shield, ShieldSettings())
        XCTAssertEqual(world.problems(containing: "could not read the settings store \"block\"").count, 1)

        world.problems.removeAll()
        store.clearAllSettings()
        XCTAssertEqual(world.problems(containing: "could not clear the settings store \"block\"").count, 1)

        XCTAssertEqual(world.shields.stores, [])
        XCTAssertEqual(world.shieldingStores(ofApplication: "editor.desktop"), [])
    }

    func testActivitiesAndMonitorsRefuseAnUnauthorisedApp() throws {
        let world = try InProcessWorld(test: self)
        world.use("org.example.intruder")
        let center = DeviceActivityCenter()
        let schedule = DeviceActivitySchedule(intervalStart: at(10), intervalEnd: at(12), repeats: true)
        XCTAssertThrowsError(try center.startMonitoring("daily", during: schedule)) { error in
            XCTAssertEqual(error as? DeviceActivityCenter.MonitoringError, .unauthorized)
        }
        XCTAssertEqual(world.problems.all, [])

        XCTAssertEqual(center.activities, [])
        XCTAssertEqual(world.problems(containing: "could not list the monitored activities").count, 1)
        XCTAssertNil(center.schedule(for: "daily"))

        world.problems.removeAll()
        center.stopMonitoring()
        XCTAssertEqual(world.problems(containing: "could not stop monitoring").count, 1)
        XCTAssertEqual(world.problems(containing: "not authorised").count, 1)

        XCTAssertThrowsError(try world.startMonitor("org.example.intruder")) { error in
            XCTAssertEqual(error as? DeviceActivityCenter.MonitoringError, .unauthorized)
        }
        XCTAssertThrowsError(try world.pick(applications: ["chat.desktop"])) { error in
            XCTAssertEqual((error as? ServiceError)?.code, .unauthorized)
        }
        world.advance(to: "2026-11-23 13:00")
        XCTAssertEqual(world.callbacks.all.count, 0, "nothing was registered")
    }
}
