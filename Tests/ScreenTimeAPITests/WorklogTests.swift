@_spi(Screenward) import DeviceActivity
import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardCore
import WorklogDemo
import XCTest

/// The Worklog demo from the WWDC22 talk, run against the real state owner: the
/// Social store is cleared at 17:00 and shields again at 20:00, while the Gaming
/// store keeps games shielded throughout.
final class WorklogTests: XCTestCase {
    func testSocialIsAllowedInTheEveningsWhileGamingStaysShielded() async throws {
        let world = try InProcessWorld(test: self, start: "2026-11-23 09:00")
        let client = world.use("org.example.worklog")
        await Worklog.launch()
        BarkDatabase.social.withLock { $0 = try? world.pick(categories: ["Social"]) }
        BarkDatabase.gaming.withLock { $0 = try? world.pick(categories: ["Game"]) }
        Worklog.createStores(database: BarkDatabase())
        try MonitorAttachment.attach(WorklogMonitor(), client: client)

        XCTAssertEqual(world.shieldingStores(ofApplication: "chat.desktop"), ["org.example.worklog/social"])
        XCTAssertEqual(world.shieldingStores(ofApplication: "chess.desktop"), ["org.example.worklog/gaming"])
        XCTAssertEqual(world.shieldingStores(ofApplication: "editor.desktop"), [])

        try Worklog.allowForEvenings()
        XCTAssertEqual(DeviceActivityCenter().activities, [.evenings])

        world.advance(to: "2026-11-23 16:59")
        XCTAssertEqual(world.shieldingStores(ofApplication: "chat.desktop"), ["org.example.worklog/social"])
        world.advance(to: "2026-11-23 17:00")
        XCTAssertEqual(
            world.shieldingStores(ofApplication: "chat.desktop"), [], "the monitor cleared the Social store at 17:00")
        XCTAssertEqual(world.shieldingStores(ofApplication: "chess.desktop"), ["org.example.worklog/gaming"])
        world.advance(to: "2026-11-23 19:59")
        XCTAssertEqual(world.shieldingStores(ofApplication: "chat.desktop"), [])
        world.advance(to: "2026-11-23 20:00")
        XCTAssertEqual(
            world.shieldingStores(ofApplication: "chat.desktop"), ["org.example.worklog/social"],
            "shielded again at 20:00")
        XCTAssertEqual(world.shieldingStores(ofApplication: "chess.desktop"), ["org.example.worklog/gaming"])

        // The next evening repeats it, each callback once, on time.
        world.advance(to: "2026-11-24 21:00")
        let fired = world.callbacks.all.map {
            """
            \($0.kind.rawValue) \($0.scheduledAt == $0.interval.start || $0.scheduledAt == $0.interval.end) \
            late:\($0.isLate)
            """
        }
        XCTAssertEqual(
            fired,
            Array(repeating: ["intervalDidStart true late:false", "intervalDidEnd true late:false"], count: 2).flatMap {
                $0
            })
        XCTAssertEqual(world.problems.all, [])
    }
}
