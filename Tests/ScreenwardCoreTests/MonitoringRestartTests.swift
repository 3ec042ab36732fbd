import DeviceActivity
import Foundation
import XCTest

@testable import ScreenwardCore

/// The engine is a new process after every restart: all it knows comes from the
/// ledger. Nothing may fire twice, and nothing due may be skipped.
final class MonitoringRestartTests: XCTestCase {
    /// Twelve days around New York's spring change.
    let scenario = DailyScenario(
        calendar: Calendar(identifier: .gregorian).with(zone: "America/New_York"),
        firstDay: DateComponents(year: 2026, month: 3, day: 3), dayCount: 12, night: ((0, 30), (3, 30)))

    func testRestartsAtRandomInstantsGiveTheSameCallbacks() throws {
        let straight = try scenario.makeDriver(in: makeTemporaryDirectory())
        try straight.run(until: scenario.end)

        var random = SplitMix64(state: 0x5C12_EE4A)
        let span = scenario.end.timeIntervalSince(scenario.start)
        var instants = (0..<30).map { _ in
            scenario.start.addingTimeInterval(Double.random(in: 1..<span, using: &random))
        }
        // Also right at instants something was due, the likeliest place for an off-by-one.
        instants += (0..<10).compactMap { _ in straight.delivered.randomElement(using: &random)?.scheduledAt }
        let restarted = try scenario.makeDriver(in: makeTemporaryDirectory())
        try restarted.run(until: scenario.end, restarts: instants.map { ($0, 0) })

        XCTAssertGreaterThan(straight.delivered.count, 100)
        XCTAssertEqual(restarted.delivered.count, straight.delivered.count)
        for (got, want) in zip(restarted.delivered, straight.delivered) where got != want {
            XCTFail("after restarts \(got), uninterrupted \(want)")
            break
        }
    }

    func testDeadlinesMissedWhileDownFireOnceOnRestartMarkedLate() throws {
        let straight = try scenario.makeDriver(in: makeTemporaryDirectory())
        try straight.run(until: scenario.end)

        // Outages of ten minutes to thirty hours, apart from one another.
        var random = SplitMix64(state: 0xD0_3D0)
        var outages: [(at: Date, downtime: TimeInterval)] = []
        var cursor = scenario.start.addingTimeInterval(3600)
        while true {
            cursor.addTimeInterval(Double.random(in: 3600..<(36 * 3600), using: &random))
            let downtime = Double.random(in: 600..<(30 * 3600), using: &random)
            guard cursor.addingTimeInterval(downtime + 3600) < scenario.end else { break }
            outages.append((cursor, downtime))
            cursor.addTimeInterval(downtime)
        }
        XCTAssertGreaterThan(outages.count, 3)
        let restarted = try scenario.makeDriver(in: makeTemporaryDirectory())
        try restarted.run(until: scenario.end, restarts: outages)

        XCTAssertEqual(
            restarted.delivered.map(\.identity), straight.delivered.map(\.identity),
            "the same callbacks, in the same order")
        var late = 0
        for (got, want) in zip(restarted.delivered, straight.delivered) {
            XCTAssertEqual(
                got.scheduledAt.timeIntervalSince1970, want.scheduledAt.timeIntervalSince1970, accuracy: 0.002,
                got.identity)
            if let outage = outages.first(where: { $0.at <= want.scheduledAt && want.scheduledAt < $0.at + $0.downtime }
            ) {
                // Missed while down: delivered as the engine comes back, and it says it is late.
                XCTAssertEqual(got.deliveredAt, outage.at + outage.downtime, got.identity)
                XCTAssertTrue(got.isLate, got.identity)
                late += 1
            } else {
                XCTAssertEqual(
                    got.deliveredAt.timeIntervalSince1970, want.deliveredAt.timeIntervalSince1970, accuracy: 0.002,
                    got.identity)
                XCTAssertFalse(got.isLate, got.identity)
            }
        }
        XCTAssertGreaterThan(late, 10, "the outages hid some deadlines")
    }

    func testRegistrationsAndProgressSurviveReopeningTheLedger() throws {
        let directory = try makeTemporaryDirectory()
        let driver = try scenario.makeDriver(in: directory)
        try driver.run(until: scenario.at(scenario.day(1), 18, 0))
        let before = driver.engine.activities
        try driver.reopen()
        XCTAssertEqual(driver.engine.activities, before)
        XCTAssertEqual(driver.engine.activities.map(\.name), ["evening", "night"])
        // Inside the evening interval: its start fired before the restart, and does not again.
        XCTAssertEqual(try driver.takeDue(), [])
        // Ended intervals are marked so: only the evening's is still open.
        let ledger = try Ledger(url: driver.url)
        let open = try ledger.database.read {
            try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM monitorInterval WHERE NOT isFinished")
        }
        XCTAssertEqual(open, 1)
    }
}

extension Calendar {
    func with(zone: String) -> Calendar {
        var copy = self
        copy.timeZone = TimeZone(identifier: zone)!
        return copy
    }
}

/// A callback is recorded as fired in the same transaction that queues it for its
/// monitor: when queueing fails (or the process dies first), it is not fired either,
/// and the next step hands it out, once.
final class MonitoringQueueAtomicityTests: MonitoringDayTestCase {
    struct QueueFailed: Error {}

    func testACallbackWhoseQueueingFailedIsStillDueAndComesOnce() throws {
        let expected = [
            "evening intervalWillStartWarning 10 16:50:00 late, at 10 17:00:00", "evening intervalDidStart 10 17:00:00",
        ]
        let start = at("10 17:00")
        for restartAfterFailure in [false, true] {
            let driver = try driver(at: "10 16:00")
            try driver.register("evening", schedule: evening)
            XCTAssertThrowsError(
                try driver.engine.takeDue(now: start, calendar: newYork, isPresent: true) { _, _ in throw QueueFailed()
                })

            // The engine kept nothing of the failed step, in memory or in the ledger.
            let engine =
                restartAfterFailure
                ? try MonitorEngine(ledger: Ledger(url: driver.url), usage: driver.usage) : driver.engine
            var queued: [MonitorCallback] = []
            let due = try engine.takeDue(now: start, calendar: newYork, isPresent: true) { callbacks, _ in
                queued = callbacks
            }
            XCTAssertEqual(summary(due), expected)
            XCTAssertEqual(queued, due, "what is handed out is what was queued")

            // Once: neither the same engine nor a restarted one owes it again.
            XCTAssertEqual(try engine.takeDue(now: start, calendar: newYork, isPresent: true), [])
            let restarted = try MonitorEngine(ledger: Ledger(url: driver.url), usage: driver.usage)
            XCTAssertEqual(try restarted.takeDue(now: start, calendar: newYork, isPresent: true), [])
        }
    }
}
