import DeviceActivity
import Foundation
@_spi(Screenward) import ManagedSettings
import XCTest

@testable import ScreenwardCore

/// A month of daily life: an evening activity with two events and warnings, a night
/// activity whose hours the daylight-saving changes cut or stretch, and focus that
/// differs from day to day. Also the oracle that says, without the engine's help,
/// which callbacks are due when.
struct DailyScenario {
    let calendar: Calendar
    let firstDay: DateComponents
    let dayCount: Int
    /// The night activity's hours (local), chosen to straddle the zone's DST change.
    let night: (start: (Int, Int), end: (Int, Int))

    static let eveningWarning: TimeInterval = 600
    static let nightWarning: TimeInterval = 900

    var evening: DeviceActivitySchedule {
        DeviceActivitySchedule(
            intervalStart: DateComponents(hour: 17, minute: 0), intervalEnd: DateComponents(hour: 20, minute: 0),
            repeats: true, warningTime: DateComponents(minute: 10))
    }

    var nightSchedule: DeviceActivitySchedule {
        DeviceActivitySchedule(
            intervalStart: DateComponents(hour: night.start.0, minute: night.start.1),
            intervalEnd: DateComponents(hour: night.end.0, minute: night.end.1),
            repeats: true, warningTime: DateComponents(minute: 15))
    }

    static let events: [DeviceActivityEvent.Name: DeviceActivityEvent] = [
        "social": DeviceActivityEvent(applications: [socialApp], threshold: DateComponents(minute: 30)),
        "games": DeviceActivityEvent(
            categories: [gamesCategory], threshold: DateComponents(hour: 1), includesPastActivity: true),
    ]

    func day(_ index: Int) -> DateComponents {
        let noon = calendar.date(
            from: DateComponents(year: firstDay.year, month: firstDay.month, day: firstDay.day, hour: 12))!
        let date = calendar.date(byAdding: .day, value: index, to: noon)!
        return calendar.dateComponents([.year, .month, .day], from: date)
    }

    var start: Date { at(day(0), 0, 0) }
    var end: Date { at(day(dayCount), 0, 0) }

    /// The first instant of local day `day` whose wall time is at least `hour:minute`,
    /// found by walking the minutes (not by the calendar's matching rules the engine uses).
    func at(_ day: DateComponents, _ hour: Int, _ minute: Int) -> Date {
        let guess = calendar.date(
            from: DateComponents(year: day.year, month: day.month, day: day.day, hour: hour, minute: minute))!
        var instant = guess.addingTimeInterval(-3 * 3600)
        while true {
            let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: instant)
            if parts.year == day.year && parts.month == day.month && parts.day == day.day
                && (parts.hour!, parts.minute!) >= (hour, minute)
            {
                return instant
            }
            instant.addTimeInterval(60)
        }
    }

    /// The focus, day by day: social media around the evening's start, games across
    /// it (so usage before the start must not count), except every fifth day.
    func script(into usage: ScriptedUsage) {
        usage.categories[gameApp] = gamesCategory
        for index in 0..<dayCount {
            let day = day(index)
            let plays = index % 5 != 0
            usage.focus(socialApp, from: at(day, 12, 0), to: at(day, 13, 0))
            if plays { usage.focus(gameApp, from: at(day, 16, 30), to: at(day, 17, 10)) }
            usage.focus(socialApp, from: at(day, 17, 10), to: at(day, 17, 20 + index % 7))
            usage.focus(socialApp, from: at(day, 17, 40), to: at(day, 18, 10))
            if plays { usage.focus(gameApp, from: at(day, 18, 20), to: at(day, 19, 40)) }
            usage.focus(editorApp, from: at(day, 19, 45), to: at(day, 21, 0))
        }
    }

    /// One callback the oracle expects.
    struct Expected: Hashable {
        var activity: String
        var kind: MonitorCallback.Kind
        var event: String? = nil
        var interval: DateInterval
        var at: Date
    }

    func expected(usage: ScriptedUsage) -> [Expected] {
        var all: [Expected] = []
        for index in 0..<dayCount {
            let day = day(index)
            let evening = DateInterval(start: at(day, 17, 0), end: at(day, 20, 0))
            let night = DateInterval(
                start: at(day, night.start.0, night.start.1), end: at(day, night.end.0, night.end.1))
            all += intervalCallbacks("evening", evening, warning: Self.eveningWarning)
            all += intervalCallbacks("night", night, warning: Self.nightWarning)
            for (name, event) in Self.events {
                let threshold = event.thresholdDuration!
                for (kind, level) in [
                    (MonitorCallback.Kind.eventWillReachThresholdWarning, threshold - Self.eveningWarning),
                    (.eventDidReachThreshold, threshold),
                ] {
                    if let crossing = usage.crossing(of: level, for: event, from: evening.start, before: evening.end) {
                        all.append(
                            Expected(
                                activity: "evening", kind: kind, event: name.rawValue, interval: evening, at: crossing))
                    }
                }
            }
        }
        return all
    }

    private func intervalCallbacks(_ activity: String, _ interval: DateInterval, warning: TimeInterval) -> [Expected] {
        [
            Expected(
                activity: activity, kind: .intervalWillStartWarning, interval: interval, at: interval.start - warning),
            Expected(activity: activity, kind: .intervalDidStart, interval: interval, at: interval.start),
            Expected(activity: activity, kind: .intervalWillEndWarning, interval: interval, at: interval.end - warning),
            Expected(activity: activity, kind: .intervalDidEnd, interval: interval, at: interval.end),
        ]
    }

    /// A driver over a fresh database in `directory`, with both activities registered
    /// at the first midnight.
    func makeDriver(in directory: URL) throws -> MonitorDriver {
        let usage = ScriptedUsage()
        script(into: usage)
        let driver = try MonitorDriver(
            url: directory.appendingPathComponent("ledger.sqlite"), usage: usage, calendar: calendar, start: start)
        try driver.register("evening", schedule: evening, events: Self.events)
        try driver.register("night", schedule: nightSchedule)
        return driver
    }
}

extension MonitorCallback {
    /// What identifies a callback: each may come once.
    var identity: String {
        "\(activity.rawValue) \(kind.rawValue) \(event?.rawValue ?? "-") \(interval.start.timeIntervalSince1970)"
    }
}
