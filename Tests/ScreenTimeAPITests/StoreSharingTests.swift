@_spi(Screenward) import DeviceActivity
@_spi(Screenward) import FamilyControls
import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardCore
import ScreenwardIPC
import XCTest

/// A store is shared by an app and its monitor: each changing a different setting at
/// the same moment keeps the other's change.
final class StoreSharingTests: XCTestCase {
    /// Shields the domains it is given when an interval starts.
    final class DomainMonitor: DeviceActivityMonitor {
        var domains: Set<WebDomainToken> = []
        override func intervalDidStart(for activity: DeviceActivityName) {
            ManagedSettingsStore(named: .init("shared")).shield.webDomains = domains
        }
    }

    func testAnAppAndItsMonitorDoNotUndoEachOthersSettings() async throws {
        let world = try InProcessWorld(test: self, start: "2026-11-23 09:00")
        let client = world.use("org.example.app")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        let picked = try world.pick(applications: ["chat.desktop"], webDomains: ["example.com"])
        let monitor = DomainMonitor()
        monitor.domains = picked.webDomainTokens
        try MonitorAttachment.attach(monitor, client: client)
        try DeviceActivityCenter().startMonitoring(
            "daily", during: DeviceActivitySchedule(intervalStart: at(10), intervalEnd: at(12), repeats: true))

        // 10:00 comes while the app is changing the store: the agent runs the monitor
        // between the app's reading the store and its writing.
        world.clock.set(InProcessWorld.date("2026-11-23 10:00"))
        let store = ManagedSettingsStore(named: .init("shared"))
        store.shield.applications = picked.applicationTokens

        XCTAssertEqual(world.callbacks.all.map(\.kind), [.intervalDidStart])
        XCTAssertEqual(store.shield.applications, picked.applicationTokens)
        XCTAssertEqual(store.shield.webDomains, picked.webDomainTokens, "the monitor's setting was kept")
        XCTAssertEqual(world.shieldingStores(ofWebDomain: "example.com"), ["org.example.app/shared"])
        XCTAssertEqual(world.problems.all, [])
    }
}
