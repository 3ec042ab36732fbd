import DeviceActivity
import Foundation
import XCTest

@testable import ScreenwardCore

/// Presence, wall-clock jumps, suspend and time-zone changes.
final class MonitoringClockTests: MonitoringDayTestCase {
    func testIntervalCallbacksWaitForThePersonAndComeLate() throws {
        let usage = ScriptedUsage()
        // A window takes the focus while the person is away: the engine is asked then too.
        usage.focus(editorApp, from: at("10 17:05"), to: at("10 17:06"))
        let driver = try driver(at: "10 12:00", usage: usage)
        driver.absences = [
            DateInterval(start: at("10 16:45"), end: at("10 17:20")),
            DateInterval(start: at("10 19:45"), end: at("10 20:30")),
            // Away for a whole interval: all four come on the return, in order.
            DateInterval(start: at("11 12:00"), end: at("12 09:00")),
        ]
        // Its warning is due as counting starts (the threshold is within the warning
        // time), but an event belongs to an interval the app has been told about.
        try driver.register(
            "evening", schedule: evening,
            events: [
                "short": DeviceActivityEvent(applications: [socialApp], threshold: DateComponents(minute: 5))
            ])
        try driver.run(until: at("12 12:00"))
        XCTAssertEqual(
            summary(driver.delivered),
            [
                "evening intervalWillStartWarning 10 16:50:00 late, at 10 17:20:00",
                "evening intervalDidStart 10 17:00:00 late, at 10 17:20:00",
                "evening eventWillReachThresholdWarning(short) 10 17:00:00 late, at 10 17:20:00",
                "evening intervalWillEndWarning 10 19:50:00 late, at 10 20:30:00",
                "evening intervalDidEnd 10 20:00:00 late, at 10 20:30:00",
                "evening intervalWillStartWarning 11 16:50:00 late, at 12 09:00:00",
                "evening intervalDidStart 11 17:00:00 late, at 12 09:00:00",
                "evening eventWillReachThresholdWarning(short) 11 17:00:00 late, at 12 09:00:00",
                "evening intervalWillEndWarning 11 19:50:00 late, at 12 09:00:00",
                "evening intervalDidEnd 11 20:00:00 late, at 12 09:00:00",
            ])
    }

    func testAStopWhileTheStartWaitsForThePersonEndsNothing() throws {
        let driver = try driver(at: "10 12:00")
        driver.absences = [DateInterval(start: at("10 16:00"), end: at("10 18:00"))]
        try driver.register("evening", schedule: evening)
        try driver.run(until: at("10 17:30"))
        try driver.unregister(["evening"])
        XCTAssertEqual(driver.delivered, [], "the app never saw the start, so it gets no end")
    }

    func testAJumpBackwardNeverRefires() throws {
        let driver = try driver(at: "10 12:00")
        try driver.register("evening", schedule: evening)
        try driver.run(until: at("10 18:30"))
        driver.jump(to: at("10 16:00"))  // inside an interval, back to before it started
        try driver.run(until: at("11 21:00"))
        driver.jump(to: at("10 16:00"))  // back over a whole finished interval
        try driver.run(until: at("11 21:00"))
        XCTAssertEqual(
            summary(driver.delivered),
            [
                "evening intervalWillStartWarning 10 16:50:00",
                "evening intervalDidStart 10 17:00:00",
                "evening intervalWillEndWarning 10 19:50:00",
                "evening intervalDidEnd 10 20:00:00",
                "evening intervalWillStartWarning 11 16:50:00",
                "evening intervalDidStart 11 17:00:00",
                "evening intervalWillEndWarning 11 19:50:00",
                "evening intervalDidEnd 11 20:00:00",
            ])
        try driver.run(until: at("12 18:00"))
        XCTAssertEqual(driver.delivered.count, 10, "and the next day runs as usual")
    }

    /// A jump forward, or a suspend the caller slept through: what became due comes
    /// once, late, in order, with the instants it was due at.
    func testAJumpForwardOrASuspendDeliversWhatBecameDueOnceAndLate() throws {
        let usage = ScriptedUsage()
        usage.focus(socialApp, from: at("11 17:10"), to: at("11 18:00"))
        let driver = try driver(at: "10 12:00", usage: usage)
        try driver.register(
            "evening", schedule: evening,
            events: [
                "social": DeviceActivityEvent(applications: [socialApp], threshold: DateComponents(minute: 30))
            ])
        try driver.run(until: at("10 16:00"))
        driver.jump(to: at("12 17:30"))
        try driver.takeDue()
        XCTAssertEqual(
            summary(driver.delivered),
            [
                "evening intervalWillStartWarning 10 16:50:00 late, at 12 17:30:00",
                "evening intervalDidStart 10 17:00:00 late, at 12 17:30:00",
                "evening intervalWillEndWarning 10 19:50:00 late, at 12 17:30:00",
                "evening intervalDidEnd 10 20:00:00 late, at 12 17:30:00",
                "evening intervalWillStartWarning 11 16:50:00 late, at 12 17:30:00",
                "evening intervalDidStart 11 17:00:00 late, at 12 17:30:00",
                "evening eventWillReachThresholdWarning(social) 11 17:30:00 late, at 12 17:30:00",
                "evening eventDidReachThreshold(social) 11 17:40:00 late, at 12 17:30:00",
                "evening intervalWillEndWarning 11 19:50:00 late, at 12 17:30:00",
                "evening intervalDidEnd 11 20:00:00 late, at 12 17:30:00",
                "evening intervalWillStartWarning 12 16:50:00 late, at 12 17:30:00",
                "evening intervalDidStart 12 17:00:00 late, at 12 17:30:00",
            ])
        XCTAssertEqual(try driver.takeDue(), [], "once")
        try driver.run(until: at("12 21:00"))
        XCTAssertEqual(
            summary(Array(driver.delivered.dropFirst(12))),
            [
                "evening intervalWillEndWarning 12 19:50:00", "evening intervalDidEnd 12 20:00:00",
            ])
    }

    func testATimeZoneChangeKeepsTheRunningIntervalAndMovesTheNextOnes() throws {
        let driver = try driver(at: "10 12:00")
        try driver.register("evening", schedule: evening)
        try driver.run(until: at("10 18:00"))
        // Flying to Berlin: 18:00 in New York is 23:00 in Berlin.
        let berlin = Calendar(identifier: .gregorian).with(zone: "Europe/Berlin")
        driver.calendar = berlin
        try driver.run(until: local("2026-03-11 21:00", berlin))
        XCTAssertEqual(
            driver.delivered.map(\.scheduledAt),
            [
                at("10 16:50"), at("10 17:00"), at("10 19:50"), at("10 20:00"),
                local("2026-03-11 16:50", berlin), local("2026-03-11 17:00", berlin),
                local("2026-03-11 19:50", berlin), local("2026-03-11 20:00", berlin),
            ])
        XCTAssertEqual(
            driver.delivered.dropFirst(3).first?.interval, DateInterval(start: at("10 17:00"), end: at("10 20:00")))
        XCTAssertTrue(driver.delivered.allSatisfy { !$0.isLate })
    }

    func testAnIntervalWarnedOfKeepsItsInstantsAcrossAZoneChange() throws {
        let driver = try driver(at: "10 12:00")
        try driver.register("evening", schedule: evening)
        try driver.run(until: at("10 16:55"))
        // The start was announced for 17:00 New York time; a zone change does not move it.
        driver.calendar = Calendar(identifier: .gregorian).with(zone: "Asia/Tokyo")
        try driver.run(until: at("10 20:30"))
        XCTAssertEqual(
            summary(driver.delivered),
            [
                "evening intervalWillStartWarning 10 16:50:00", "evening intervalDidStart 10 17:00:00",
                "evening intervalWillEndWarning 10 19:50:00", "evening intervalDidEnd 10 20:00:00",
            ])
    }

    func testAZoneChangeNeverRunsAnEveningTwice() throws {
        let driver = try driver(at: "10 12:00")
        try driver.register("evening", schedule: evening)
        try driver.run(until: at("10 20:30"))
        // 20:30 in New York is 19:30 in Chicago: inside Chicago's evening, which began
        // before New York's ended. That one is skipped; the next follows Chicago.
        let chicago = Calendar(identifier: .gregorian).with(zone: "America/Chicago")
        driver.calendar = chicago
        try driver.run(until: local("2026-03-11 17:30", chicago))
        XCTAssertEqual(
            driver.delivered.map(\.scheduledAt),
            [
                at("10 16:50"), at("10 17:00"), at("10 19:50"), at("10 20:00"),
                local("2026-03-11 16:50", chicago), local("2026-03-11 17:00", chicago),
            ])
    }
}
