import DeviceActivity
import Foundation
import XCTest

@testable import ScreenwardCore

/// A day in New York with an evening activity, and a compact way to print callbacks.
class MonitoringDayTestCase: XCTestCase {
    let newYork = Calendar(identifier: .gregorian).with(zone: "America/New_York")
    let evening = DeviceActivitySchedule(
        intervalStart: DateComponents(hour: 17), intervalEnd: DateComponents(hour: 20), repeats: true,
        warningTime: DateComponents(minute: 10))

    func at(_ text: String) -> Date { local("2026-03-" + text, newYork) }

    func driver(at text: String, usage: ScriptedUsage = ScriptedUsage()) throws -> MonitorDriver {
        try MonitorDriver(
            url: makeTemporaryDirectory().appendingPathComponent("ledger.sqlite"), usage: usage, calendar: newYork,
            start: at(text))
    }

    /// Kind, event and the instants, in delivery order.
    func summary(_ callbacks: [MonitorCallback]) -> [String] {
        let formatter = DateFormatter()
        formatter.timeZone = newYork.timeZone
        formatter.dateFormat = "dd HH:mm:ss"
        return callbacks.map { callback in
            let event = callback.event.map { "(\($0.rawValue))" } ?? ""
            let late = callback.isLate ? " late, at \(formatter.string(from: callback.deliveredAt))" : ""
            return
                """
                \(callback.activity.rawValue) \(callback.kind.rawValue)\(event) \
                \(formatter.string(from: callback.scheduledAt))\(late)
                """
        }
    }
}

/// Registering, registering again and stopping, as Apple's DeviceActivityCenter does.
final class MonitoringRegistrationTests: MonitoringDayTestCase {
    func testRegisteringInsideARunningIntervalStartsItAtOnce() throws {
        let driver = try driver(at: "10 18:00")
        try driver.register("evening", schedule: evening)
        XCTAssertEqual(summary(driver.delivered), ["evening intervalDidStart 10 18:00:00"])
        XCTAssertEqual(driver.delivered.first?.interval, DateInterval(start: at("10 17:00"), end: at("10 20:00")))
        try driver.run(until: at("11 21:00"))
        XCTAssertEqual(
            summary(driver.delivered),
            [
                "evening intervalDidStart 10 18:00:00",
                "evening intervalWillEndWarning 10 19:50:00",
                "evening intervalDidEnd 10 20:00:00",
                "evening intervalWillStartWarning 11 16:50:00",
                "evening intervalDidStart 11 17:00:00",
                "evening intervalWillEndWarning 11 19:50:00",
                "evening intervalDidEnd 11 20:00:00",
            ])
    }

    func testRegisteringWithinTheStartWarningWarnsAtOnce() throws {
        let driver = try driver(at: "10 16:55")
        try driver.register("evening", schedule: evening)
        try driver.run(until: at("10 17:30"))
        XCTAssertEqual(
            summary(driver.delivered),
            [
                "evening intervalWillStartWarning 10 16:55:00", "evening intervalDidStart 10 17:00:00",
            ])
    }

    func testPastActivityCountsFromTheIntervalStartOtherwiseFromRegistration() throws {
        let usage = ScriptedUsage()
        usage.focus(socialApp, from: at("10 17:00"), to: at("10 17:25"))
        usage.focus(socialApp, from: at("10 17:40"), to: at("10 18:30"))
        let driver = try driver(at: "10 17:30", usage: usage)
        let noWarning = DeviceActivitySchedule(
            intervalStart: DateComponents(hour: 17), intervalEnd: DateComponents(hour: 20), repeats: false)
        try driver.register(
            "evening", schedule: noWarning,
            events: [
                "past": DeviceActivityEvent(
                    applications: [socialApp], threshold: DateComponents(minute: 30), includesPastActivity: true),
                "fresh": DeviceActivityEvent(applications: [socialApp], threshold: DateComponents(minute: 30)),
                // Reached at 17:20, before it was asked for: due as it is registered.
                "already": DeviceActivityEvent(
                    applications: [socialApp], threshold: DateComponents(minute: 20), includesPastActivity: true),
            ])
        try driver.run(until: at("10 21:00"))
        XCTAssertEqual(
            summary(driver.delivered),
            [
                "evening intervalDidStart 10 17:30:00",
                "evening eventDidReachThreshold(already) 10 17:30:00",
                "evening eventDidReachThreshold(past) 10 17:45:00",  // 25 minutes before registration, 5 after
                "evening eventDidReachThreshold(fresh) 10 18:10:00",  // 30 minutes after registration
                "evening intervalDidEnd 10 20:00:00",
            ])
    }

    func testEventWarningsComeTheWarningTimeBeforeTheThreshold() throws {
        let usage = ScriptedUsage()
        usage.focus(socialApp, from: at("10 17:30"), to: at("10 18:30"))
        let driver = try driver(at: "10 12:00", usage: usage)
        try driver.register(
            "evening", schedule: evening,
            events: [
                "social": DeviceActivityEvent(applications: [socialApp], threshold: DateComponents(minute: 45)),
                // A threshold within the warning time: "less than ten minutes left" holds from the start.
                "short": DeviceActivityEvent(applications: [socialApp], threshold: DateComponents(minute: 5)),
            ])
        try driver.run(until: at("10 19:00"))
        XCTAssertEqual(
            summary(driver.delivered),
            [
                "evening intervalWillStartWarning 10 16:50:00",
                "evening intervalDidStart 10 17:00:00",
                "evening eventWillReachThresholdWarning(short) 10 17:00:00",
                "evening eventDidReachThreshold(short) 10 17:35:00",
                "evening eventWillReachThresholdWarning(social) 10 18:05:00",
                "evening eventDidReachThreshold(social) 10 18:15:00",
            ])
    }

    func testRegisteringAgainReplacesTheRegistration() throws {
        let usage = ScriptedUsage()
        usage.focus(socialApp, from: at("10 17:00"), to: at("10 19:00"))
        let driver = try driver(at: "10 16:00", usage: usage)
        let social = DeviceActivityEvent(applications: [socialApp], threshold: DateComponents(hour: 1))
        try driver.register("evening", schedule: evening, events: ["social": social])
        try driver.run(until: at("10 17:30"))
        XCTAssertEqual(driver.delivered.map(\.kind), [.intervalWillStartWarning, .intervalDidStart])

        // The old registration's interval ends; the new one's starts at once and counts from now.
        try driver.register("evening", schedule: evening, events: ["social": social])
        XCTAssertEqual(
            summary(Array(driver.delivered.dropFirst(2))),
            [
                "evening intervalDidEnd 10 17:30:00", "evening intervalDidStart 10 17:30:00",
            ])
        XCTAssertEqual(driver.engine.activities.count, 1)
        try driver.reopen()
        try driver.run(until: at("10 21:00"))
        XCTAssertEqual(
            summary(Array(driver.delivered.dropFirst(4))),
            [
                "evening eventWillReachThresholdWarning(social) 10 18:20:00",
                "evening eventDidReachThreshold(social) 10 18:30:00",
                "evening intervalWillEndWarning 10 19:50:00",
                "evening intervalDidEnd 10 20:00:00",
            ])
    }

    func testStoppingARunningActivityEndsItsInterval() throws {
        let driver = try driver(at: "10 16:00")
        try driver.register("evening", schedule: evening)
        try driver.register(
            "morning",
            schedule: DeviceActivitySchedule(
                intervalStart: DateComponents(hour: 8), intervalEnd: DateComponents(hour: 11), repeats: true))
        try driver.register("evening", owner: "org.example.other", schedule: evening)
        try driver.run(until: at("10 18:00"))
        XCTAssertEqual(driver.delivered.count, 4)

        try driver.unregister(["evening"])
        XCTAssertEqual(summary(Array(driver.delivered.dropFirst(4))), ["evening intervalDidEnd 10 18:00:00"])
        XCTAssertEqual(driver.delivered.last?.owner, "org.example.worklog")
        // Stopping what is not running ends nothing; an empty list stops all of the owner's.
        try driver.unregister([])
        XCTAssertEqual(driver.delivered.count, 5)
        XCTAssertEqual(driver.engine.activities.map(\.owner), ["org.example.other"])
        try driver.unregister(["evening"])
        XCTAssertEqual(driver.delivered.count, 5)

        try driver.run(until: at("11 21:00"))
        XCTAssertTrue(driver.delivered.dropFirst(5).allSatisfy { $0.owner == "org.example.other" })
        XCTAssertEqual(driver.delivered.count, 5 + 2 + 4)
    }

    func testANonRepeatingScheduleRunsOnce() throws {
        let driver = try driver(at: "10 10:00")
        let once = DeviceActivitySchedule(
            intervalStart: DateComponents(hour: 17), intervalEnd: DateComponents(hour: 20), repeats: false,
            warningTime: DateComponents(minute: 10))
        try driver.register("once", schedule: once)
        try driver.run(until: at("13 21:00"))
        XCTAssertEqual(
            summary(driver.delivered),
            [
                "once intervalWillStartWarning 10 16:50:00", "once intervalDidStart 10 17:00:00",
                "once intervalWillEndWarning 10 19:50:00", "once intervalDidEnd 10 20:00:00",
            ])
        XCTAssertNil(driver.engine.nextDeadline(now: driver.now, calendar: newYork, isPresent: true))
    }

    func testTheNextDeadlineFollowsTheFocus() throws {
        let usage = ScriptedUsage()
        usage.focus(socialApp, from: at("10 17:00"), to: at("10 17:20"))
        usage.focus(editorApp, from: at("10 17:20"), to: at("10 17:50"))
        usage.focus(socialApp, from: at("10 17:50"), to: at("10 19:00"))
        let engine = try MonitorEngine(ledger: Ledger(), usage: usage)
        try engine.register(
            "evening", owner: "o", schedule: evening,
            events: [
                "social": DeviceActivityEvent(applications: [socialApp], threshold: DateComponents(minute: 30))
            ], at: at("10 12:00"))
        func deadline(_ text: String) -> Date? {
            engine.nextDeadline(now: at(text), calendar: newYork, isPresent: true)
        }
        XCTAssertEqual(deadline("10 12:00"), at("10 16:50"))
        _ = try engine.takeDue(now: at("10 17:00"), calendar: newYork, isPresent: true)
        // Focused on social media: the warning at 20 minutes of use.
        XCTAssertEqual(deadline("10 17:05"), at("10 17:20"))
        // In the editor, no usage accrues: only the interval's own instants remain.
        XCTAssertEqual(deadline("10 17:30"), at("10 19:50"))
        // Back on social media with 20 minutes used: the threshold after 10 more.
        _ = try engine.takeDue(now: at("10 17:50"), calendar: newYork, isPresent: true)
        XCTAssertEqual(deadline("10 17:50"), at("10 18:00"))
    }
}
