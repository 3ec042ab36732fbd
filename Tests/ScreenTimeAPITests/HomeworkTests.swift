@_spi(Screenward) import DeviceActivity
import FamilyControls
import Foundation
import HomeworkKit
@_spi(Screenward) import ManagedSettings
import ScreenwardCore
import XCTest

/// The Homework demo from the WWDC21 talk, run against the real state owner with its monitor
/// in this process: the discouraged apps and websites are shielded all day, every minute of
/// it, until the encouraged app has been used for the threshold.
final class HomeworkTests: XCTestCase {
    func testTheDiscouragedAreShieldedAllDayUntilTheEncouragedAppWasUsedForTheThreshold() async throws {
        let world = try InProcessWorld(test: self, start: "2026-11-23 09:00")
        let client = world.use("org.example.homework")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        let discourage = try world.pick(applications: ["chess.desktop"], webDomains: ["games.example.com"])
        let encourage = try world.pick(applications: ["editor.desktop"])
        try MonitorAttachment.attach(HomeworkMonitor(), client: client)
        try Homework.start(
            HomeworkModel(
                selectionToDiscourage: discourage, selectionToEncourage: encourage,
                threshold: DateComponents(minute: 30)))
        let store = ManagedSettingsStore(named: .homework)

        world.advance(to: "2026-11-23 09:01")
        XCTAssertEqual(world.shieldingStores(ofApplication: "chess.desktop"), ["org.example.homework/homework"])
        XCTAssertEqual(store.shield.webDomains, discourage.webDomainTokens, "websites picked are shielded too")

        // The day's interval ends at 23:59 and the next starts at 00:00: the minute between stays shielded.
        world.advance(to: InProcessWorld.date("2026-11-23 23:59").addingTimeInterval(30))
        XCTAssertEqual(world.shieldingStores(ofApplication: "chess.desktop"), ["org.example.homework/homework"])
        world.advance(to: InProcessWorld.date("2026-11-24 00:00").addingTimeInterval(30))
        XCTAssertEqual(world.shieldingStores(ofApplication: "chess.desktop"), ["org.example.homework/homework"])

        // Thirty minutes of the editor lift the shields.
        world.focus.focus(world.applicationToken("editor.desktop"), at: InProcessWorld.date("2026-11-24 10:00"))
        world.advance(to: "2026-11-24 10:29")
        XCTAssertEqual(world.shieldingStores(ofApplication: "chess.desktop"), ["org.example.homework/homework"])
        world.advance(to: "2026-11-24 10:31")
        XCTAssertEqual(world.shieldingStores(ofApplication: "chess.desktop"), [])
        XCTAssertNil(store.shield.webDomains)
        XCTAssertEqual(world.problems.all, [])
    }
}
