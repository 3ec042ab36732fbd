@_spi(Screenward) import DeviceActivity
@_spi(Screenward) import FamilyControls
import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardCore
import ScreenwardIPC
import XCTest

/// What an app was granted and set up survives the agent's restart: no new prompt,
/// the same tokens, its stores and activities; what fell due meanwhile comes once, late.
final class AgentRestartTests: XCTestCase {
    func testGrantsTokensStoresAndActivitiesSurviveARestart() async throws {
        let url = try temporaryFile("ledger.sqlite")
        let before = try InProcessWorld(test: self, start: "2026-11-23 09:00", ledgerURL: url)
        before.use("org.example.app")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        let picked = try before.pick(applications: ["chat.desktop"])
        ManagedSettingsStore(named: .init("chat")).shield.applications = picked.applicationTokens
        let schedule = DeviceActivitySchedule(intervalStart: at(10), intervalEnd: at(12), repeats: true)
        try DeviceActivityCenter().startMonitoring("daily", during: schedule)

        // The agent is down from 09:00 to 10:30.
        let after = try InProcessWorld(test: self, start: "2026-11-23 10:30", ledgerURL: url)
        after.use("org.example.app")
        XCTAssertEqual(AuthorizationCenter.shared.authorizationStatus, .approved)
        XCTAssertEqual(try after.pick(applications: ["chat.desktop"]), picked)
        XCTAssertEqual(ManagedSettingsStore(named: .init("chat")).shield.applications, picked.applicationTokens)
        XCTAssertEqual(after.shieldingStores(ofApplication: "chat.desktop"), ["org.example.app/chat"])
        XCTAssertEqual(DeviceActivityCenter().schedule(for: "daily"), schedule)

        let monitor = try after.startMonitor("org.example.app")
        after.advance(to: "2026-11-23 12:00")
        XCTAssertEqual(
            monitor.lines,
            [
                "intervalDidStart daily [11-23 10:00–11-23 12:00] at 11-23 10:00 late",
                "intervalDidEnd daily [11-23 10:00–11-23 12:00] at 11-23 12:00",
            ])
        XCTAssertEqual(after.problems.all, [])
    }
}
