import DeviceActivity
import Foundation
import XCTest

@testable import ScreenwardCore

/// A simulated month of a daily schedule across both daylight-saving changes: every
/// callback once per interval, at its instant, the clock moved only to the instants
/// the engine (or the focus) announces.
final class MonitoringMonthTests: XCTestCase {
    func testSpringInNewYork() throws {
        // 2026-03-08: 02:00 EST becomes 03:00 EDT; the night interval loses an hour.
        try checkMonth(
            DailyScenario(
                calendar: calendar("America/New_York"), firstDay: DateComponents(year: 2026, month: 3, day: 1),
                dayCount: 35,
                night: ((0, 30), (3, 30))), nightLengths: [3 * 3600, 2 * 3600])
    }

    func testAutumnInNewYork() throws {
        // 2026-11-01: 02:00 EDT becomes 01:00 EST; the night interval gains an hour.
        try checkMonth(
            DailyScenario(
                calendar: calendar("America/New_York"), firstDay: DateComponents(year: 2026, month: 10, day: 20),
                dayCount: 21,
                night: ((0, 30), (3, 30))), nightLengths: [3 * 3600, 4 * 3600])
    }

    func testSpringInBerlin() throws {
        // 2026-03-29: 02:00 CET becomes 03:00 CEST; a 02:30 start moves to 03:00.
        try checkMonth(
            DailyScenario(
                calendar: calendar("Europe/Berlin"), firstDay: DateComponents(year: 2026, month: 3, day: 1),
                dayCount: 35,
                night: ((2, 30), (4, 0))), nightLengths: [90 * 60, 60 * 60])
    }

    func testAutumnInBerlin() throws {
        // 2026-10-25: 03:00 CEST becomes 02:00 CET; 02:30 happens twice, the first counts.
        try checkMonth(
            DailyScenario(
                calendar: calendar("Europe/Berlin"), firstDay: DateComponents(year: 2026, month: 10, day: 20),
                dayCount: 21,
                night: ((2, 30), (4, 0))), nightLengths: [90 * 60, 150 * 60])
    }

    /// Runs `scenario` and checks every callback against the oracle; `nightLengths`
    /// are the night interval's lengths that must occur (so the DST day is covered).
    func checkMonth(
        _ scenario: DailyScenario, nightLengths: Set<TimeInterval>, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let driver = try scenario.makeDriver(in: makeTemporaryDirectory())
        try driver.run(until: scenario.end, file: file, line: line)
        let expected = scenario.expected(usage: driver.usage)
        XCTAssertGreaterThan(expected.count, scenario.dayCount * 10, "a busy month", file: file, line: line)
        assertDelivered(driver.delivered, match: expected, file: file, line: line)

        let lengths = Set(driver.delivered.filter { $0.activity == "night" }.map(\.interval.duration))
        XCTAssertEqual(lengths, nightLengths, "the DST day is in the month", file: file, line: line)
        // Stepping from deadline to deadline, not by the minute: a few dozen steps a day.
        XCTAssertLessThan(driver.steps, scenario.dayCount * 40, file: file, line: line)
    }
}

extension XCTestCase {
    /// Each expected callback exactly once, at its instant, on time; nothing else.
    func assertDelivered(
        _ delivered: [MonitorCallback], match expected: [DailyScenario.Expected], file: StaticString = #filePath,
        line: UInt = #line
    ) {
        var byIdentity: [String: [MonitorCallback]] = [:]
        for callback in delivered { byIdentity[callback.identity, default: []].append(callback) }
        for (identity, callbacks) in byIdentity where callbacks.count > 1 {
            XCTFail("fired \(callbacks.count) times: \(identity)", file: file, line: line)
        }
        var missing = 0
        for want in expected {
            let identity =
                """
                \(want.activity) \(want.kind.rawValue) \(want.event ?? "-") \
                \(want.interval.start.timeIntervalSince1970)
                """
            guard let got = byIdentity.removeValue(forKey: identity)?.first else {
                missing += 1
                if missing <= 5 { XCTFail("never fired: \(identity) due \(want.at)", file: file, line: line) }
                continue
            }
            XCTAssertEqual(got.interval, want.interval, identity, file: file, line: line)
            // Interval callbacks to the instant; thresholds within the crossing search's millisecond.
            let tolerance = want.kind.isEventCallback ? 0.002 : 0
            XCTAssertEqual(
                got.scheduledAt.timeIntervalSince1970, want.at.timeIntervalSince1970, accuracy: tolerance, identity,
                file: file, line: line)
            XCTAssertEqual(
                got.deliveredAt.timeIntervalSince1970, want.at.timeIntervalSince1970, accuracy: tolerance, identity,
                file: file, line: line)
            XCTAssertFalse(got.isLate, identity, file: file, line: line)
        }
        XCTAssertEqual(missing, 0, "callbacks never fired", file: file, line: line)
        for identity in byIdentity.keys.sorted().prefix(5) {
            XCTFail("fired but not expected: \(identity)", file: file, line: line)
        }
        // Delivered in the order they were due.
        let instants = delivered.map(\.scheduledAt)
        XCTAssertEqual(instants, instants.sorted(), "delivered in order", file: file, line: line)
    }
}
