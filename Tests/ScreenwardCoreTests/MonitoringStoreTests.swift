import DeviceActivity
import Foundation
import GRDB
import XCTest

@testable import ScreenwardCore
@testable import UsageLedger

/// The engine's tables in the ledger (migration v2).
final class MonitoringStoreTests: XCTestCase {
    let schedule = DeviceActivitySchedule(
        intervalStart: DateComponents(hour: 17), intervalEnd: DateComponents(hour: 20), repeats: true)
    let interval = DateInterval(start: Date(timeIntervalSince1970: 1_800_000_000), duration: 3 * 3600)

    func testTheMigrationAddsTheMonitorTablesToAnExistingLedger() throws {
        let url = try makeTemporaryDirectory().appendingPathComponent("ledger.sqlite")
        // A ledger that has only v1, with data in it.
        do {
            let queue = try DatabaseQueue(path: url.path)
            try LedgerMigrations.migrator.migrate(
                queue, upTo: "v1: applications, agent sessions, usage intervals, status")
            try queue.write { db in
                try db.execute(sql: "INSERT INTO agentSession (pid, display, startedAt) VALUES (1, ':1', 0)")
            }
        }
        let ledger = try Ledger(url: url)
        let tables = try ledger.database.read {
            try String.fetchSet($0, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
        }
        XCTAssertTrue(Set(["monitorRegistration", "monitorInterval", "monitorFiring"]).isSubset(of: tables))
        XCTAssertNotNil(try ledger.unfinishedAgentSession(), "v1 data is kept")
    }

    func testACallbackIsRecordedOnceAndProgressIsAllOrNothing() throws {
        let ledger = try Ledger()
        let id = try ledger.replaceMonitorRegistration(
            MonitoredActivity(owner: "o", name: "a", schedule: schedule, registeredAt: interval.start))
        let start = MonitorCallback(
            owner: "o", activity: "a", kind: .intervalDidStart, event: nil, interval: interval,
            scheduledAt: interval.start, deliveredAt: interval.start)
        try ledger.recordMonitorProgress(MonitorProgress(opened: [(id, interval)], fired: [(id, start)]))

        var end = start
        end.kind = .intervalDidEnd
        XCTAssertThrowsError(try ledger.recordMonitorProgress(MonitorProgress(fired: [(id, end), (id, start)])))
        let runs = try ledger.monitorRuns()
        XCTAssertEqual(
            runs.first?.open.first?.fired, [.interval(.intervalDidStart)], "the refused transaction left nothing")
        XCTAssertEqual(runs.first?.frontier, interval.end)
    }

    func testReplacingOrRemovingARegistrationForgetsWhatItRan() throws {
        let ledger = try Ledger()
        let activity = MonitoredActivity(
            owner: "o", name: "a", schedule: schedule,
            events: ["e": DeviceActivityEvent(applications: [socialApp], threshold: DateComponents(minute: 5))],
            registeredAt: interval.start)
        let first = try ledger.replaceMonitorRegistration(activity)
        try ledger.recordMonitorProgress(MonitorProgress(opened: [(first, interval)]))
        let second = try ledger.replaceMonitorRegistration(activity)
        XCTAssertNotEqual(first, second)
        let runs = try ledger.monitorRuns()
        XCTAssertEqual(runs.map(\.registrationID), [second])
        XCTAssertEqual(runs.first?.activity, activity, "schedule and events read back as written")
        XCTAssertEqual(runs.first?.open, [])
        XCTAssertNil(runs.first?.frontier)
        try ledger.removeMonitorRegistrations([second])
        let left = try ledger.database.read { db in
            try Int.fetchOne(
                db, sql: "SELECT (SELECT COUNT(*) FROM monitorRegistration) + (SELECT COUNT(*) FROM monitorInterval)")
        }
        XCTAssertEqual(left, 0)
    }
}
