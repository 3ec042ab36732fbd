import DeviceActivity
import Foundation
import XCTest

final class DeviceActivityScheduleTests: XCTestCase {
    func calendar(_ zone: String) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: zone)!
        return calendar
    }

    func date(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    let evenings = DeviceActivitySchedule(
        intervalStart: DateComponents(hour: 17, minute: 0), intervalEnd: DateComponents(hour: 20, minute: 0),
        repeats: true)

    func testTheCurrentIntervalIsReturnedWhileItRuns() {
        let berlin = calendar("Europe/Berlin")
        let inside = evenings.interval(
            containingOrAfter: date("2026-11-21T17:30:00Z"), calendar: berlin)  // 18:30 local
        XCTAssertEqual(inside, DateInterval(start: date("2026-11-21T16:00:00Z"), end: date("2026-11-21T19:00:00Z")))
        let before = evenings.interval(containingOrAfter: date("2026-11-21T10:00:00Z"), calendar: berlin)
        XCTAssertEqual(before?.start, date("2026-11-21T16:00:00Z"))
        let after = evenings.interval(containingOrAfter: date("2026-11-21T20:00:00Z"), calendar: berlin)  // 21:00 local
        XCTAssertEqual(after?.start, date("2026-11-22T16:00:00Z"))
    }

    func testAnIntervalThatCrossesMidnightEndsTheNextDay() {
        let night = DeviceActivitySchedule(
            intervalStart: DateComponents(hour: 22), intervalEnd: DateComponents(hour: 6), repeats: true)
        let interval = night.interval(containingOrAfter: date("2026-11-21T23:30:00Z"), calendar: calendar("UTC"))
        XCTAssertEqual(interval, DateInterval(start: date("2026-11-21T22:00:00Z"), end: date("2026-11-22T06:00:00Z")))
    }

    func testDaylightSavingChangesKeepLocalTimesAndChangeLengths() {
        let newYork = calendar("America/New_York")
        let daily = DeviceActivitySchedule(
            intervalStart: DateComponents(hour: 0, minute: 0), intervalEnd: DateComponents(hour: 23, minute: 59),
            repeats: true)
        // 2026-03-08: clocks go from 02:00 to 03:00; the day has 23 hours.
        let spring = daily.interval(containingOrAfter: date("2026-03-08T12:00:00Z"), calendar: newYork)!
        XCTAssertEqual(spring.start, date("2026-03-08T05:00:00Z"))
        XCTAssertEqual(spring.end, date("2026-03-09T03:59:00Z"))
        XCTAssertEqual(spring.duration, 22 * 3600 + 59 * 60)
        // 2026-11-01: clocks go back from 02:00 to 01:00; the day has 25 hours.
        let fall = daily.interval(containingOrAfter: date("2026-11-01T12:00:00Z"), calendar: newYork)!
        XCTAssertEqual(fall.duration, 24 * 3600 + 59 * 60)
    }

    func testAStartInTheSkippedHourMovesToTheFirstInstantAfterIt() {
        let berlin = calendar("Europe/Berlin")
        // 2026-03-29 02:00–03:00 does not exist in Berlin.
        let odd = DeviceActivitySchedule(
            intervalStart: DateComponents(hour: 2, minute: 30), intervalEnd: DateComponents(hour: 4, minute: 0),
            repeats: true)
        let interval = odd.interval(containingOrAfter: date("2026-03-28T23:00:00Z"), calendar: berlin)!
        XCTAssertEqual(interval.start, date("2026-03-29T01:00:00Z"))  // 03:00 CEST
        XCTAssertEqual(interval.end, date("2026-03-29T02:00:00Z"))  // 04:00 CEST
    }

    func testARepeatedHourStartsAtItsFirstOccurrence() {
        let berlin = calendar("Europe/Berlin")
        // 2026-10-25 02:00–03:00 happens twice in Berlin.
        let odd = DeviceActivitySchedule(
            intervalStart: DateComponents(hour: 2, minute: 30), intervalEnd: DateComponents(hour: 5, minute: 0),
            repeats: true)
        let interval = odd.interval(containingOrAfter: date("2026-10-24T22:00:00Z"), calendar: berlin)!
        XCTAssertEqual(interval.start, date("2026-10-25T00:30:00Z"))  // 02:30 CEST, the first one
        XCTAssertEqual(interval.end, date("2026-10-25T04:00:00Z"))  // 05:00 CET
    }

    func testWeeklySchedulesAndWarnings() {
        let weekend = DeviceActivitySchedule(
            intervalStart: DateComponents(hour: 9, weekday: 7), intervalEnd: DateComponents(hour: 21, weekday: 1),
            repeats: true, warningTime: DateComponents(minute: 5))
        let utc = calendar("UTC")
        let interval = weekend.interval(containingOrAfter: date("2026-11-18T12:00:00Z"), calendar: utc)!  // a Wednesday
        XCTAssertEqual(interval, DateInterval(start: date("2026-11-21T09:00:00Z"), end: date("2026-11-22T21:00:00Z")))
        XCTAssertEqual(weekend.warningDuration(calendar: utc), 300)
        XCTAssertNil(evenings.warningDuration(calendar: utc))
    }

    func testImpossibleComponentsGiveNoInterval() {
        let never = DeviceActivitySchedule(
            intervalStart: DateComponents(month: 2, day: 30), intervalEnd: DateComponents(month: 3, day: 1),
            repeats: true)
        XCTAssertNil(never.interval(containingOrAfter: date("2026-01-01T00:00:00Z"), calendar: calendar("UTC")))
    }

    func testEventThresholds() {
        XCTAssertEqual(DeviceActivityEvent(threshold: DateComponents(hour: 1, minute: 30)).thresholdDuration, 5400)
        XCTAssertNil(DeviceActivityEvent(threshold: DateComponents(month: 1)).thresholdDuration)
        XCTAssertNil(DeviceActivityEvent(threshold: DateComponents(minute: 0)).thresholdDuration)
    }
}
