import DeviceActivity
import Foundation
@_spi(Screenward) import ManagedSettings
import XCTest

@testable import ScreenwardCore

/// Focus written in advance: which application has the focus when. The engine
/// asks it like the ledger; the tests also ask it, by a different road, when the
/// thresholds must be crossed.
final class ScriptedUsage: EventUsageSource {
    struct Segment {
        var start: Date
        var end: Date
        var app: ApplicationToken
    }

    private(set) var segments: [Segment] = []
    /// Each application's category, as the catalog would give it.
    var categories: [ApplicationToken: ActivityCategoryToken] = [:]
    private(set) var queries = 0

    func focus(_ app: ApplicationToken, from start: Date, to end: Date) {
        precondition(start < end && (segments.last.map { $0.end <= start } ?? true), "segments in order, apart")
        segments.append(Segment(start: start, end: end, app: app))
    }

    func belongs(_ app: ApplicationToken, to event: DeviceActivityEvent) -> Bool {
        event.applications.contains(app) || categories[app].map(event.categories.contains) ?? false
    }

    func focusedSeconds(of event: DeviceActivityEvent, from: Date, to: Date) -> TimeInterval {
        queries += 1
        var total: TimeInterval = 0
        for segment in segments where segment.end > from && segment.start < to && belongs(segment.app, to: event) {
            total += min(segment.end, to).timeIntervalSince(max(segment.start, from))
        }
        return total
    }

    func accrualRate(of event: DeviceActivityEvent, at now: Date) -> Double {
        segments.contains { $0.start <= now && now < $0.end && belongs($0.app, to: event) } ? 1 : 0
    }

    /// The next instant the focus changes: when the agent would hear from the tracker.
    func nextChange(after now: Date) -> Date? {
        segments.lazy.flatMap { [$0.start, $0.end] }.filter { $0 > now }.min()
    }

    /// The oracle: when usage counted from `from` reaches `level`, walking the script.
    func crossing(of level: TimeInterval, for event: DeviceActivityEvent, from: Date, before end: Date) -> Date? {
        var remaining = level
        for segment in segments where segment.end > from && segment.start < end && belongs(segment.app, to: event) {
            let start = max(segment.start, from)
            let length = min(segment.end, end).timeIntervalSince(start)
            if length >= remaining { return start.addingTimeInterval(remaining) }
            remaining -= length
        }
        return nil
    }
}

/// The agent's loop, with time in the test's hands: take what is due, then move to
/// the next instant anything can happen (the engine's deadline, a focus change, a
/// presence change, a planned restart). Never a fixed step.
final class MonitorDriver {
    let url: URL
    let usage: ScriptedUsage
    private(set) var engine: MonitorEngine
    private(set) var now: Date
    var calendar: Calendar
    /// Spans during which the person is away.
    var absences: [DateInterval] = []
    private(set) var delivered: [MonitorCallback] = []
    private(set) var steps = 0

    init(url: URL, usage: ScriptedUsage, calendar: Calendar, start: Date) throws {
        self.url = url
        self.usage = usage
        self.calendar = calendar
        now = start
        engine = try MonitorEngine(ledger: Ledger(url: url), usage: usage)
    }

    var isPresent: Bool { !absences.contains { $0.start <= now && now < $0.end } }

    func nextPresenceChange(after date: Date) -> Date? {
        absences.flatMap { [$0.start, $0.end] }.filter { $0 > date }.min()
    }

    @discardableResult
    func takeDue() throws -> [MonitorCallback] {
        let due = try engine.takeDue(now: now, calendar: calendar, isPresent: isPresent)
        delivered += due
        return due
    }

    func register(
        _ name: DeviceActivityName, owner: String = "org.example.worklog", schedule: DeviceActivitySchedule,
        events: [DeviceActivityEvent.Name: DeviceActivityEvent] = [:]
    ) throws {
        delivered += try engine.register(name, owner: owner, schedule: schedule, events: events, at: now)
        try takeDue()
    }

    func unregister(_ names: [DeviceActivityName], owner: String = "org.example.worklog") throws {
        delivered += try engine.unregister(names, owner: owner, at: now)
    }

    /// Runs the loop until `end`, restarting the engine (a new process over the same
    /// database) at each of `restarts`, after the paired downtime.
    func run(
        until end: Date, restarts: [(at: Date, downtime: TimeInterval)] = [], file: StaticString = #filePath,
        line: UInt = #line
    ) throws {
        var pending = restarts.filter { $0.at > now && $0.at < end }.sorted { $0.at < $1.at }
        while true {
            try takeDue()
            guard now < end else { return }
            let candidates = [
                engine.nextDeadline(now: now, calendar: calendar, isPresent: isPresent),
                usage.nextChange(after: now), nextPresenceChange(after: now), pending.first?.at, end,
            ].compactMap { $0 }
            let next = candidates.min()!
            guard next > now else {
                XCTFail("the engine announces \(next), not after now \(now): it would spin", file: file, line: line)
                return
            }
            steps += 1
            now = min(next, end)
            if let restart = pending.first, restart.at == now {
                pending.removeFirst()
                now = now.addingTimeInterval(restart.downtime)
                try reopen()
            }
        }
    }

    /// Someone sets the wall clock.
    func jump(to date: Date) { now = date }

    /// A new engine over the same database file: what a restarted agent does.
    func reopen() throws {
        engine = try MonitorEngine(ledger: Ledger(url: url), usage: usage)
    }
}

/// Small seeded generator, so random restarts repeat from run to run.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension XCTestCase {
    func calendar(_ zone: String) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: zone)!
        return calendar
    }

    /// The instant a local wall time names: "2026-03-08 17:00" in `calendar`'s zone.
    func local(_ text: String, _ calendar: Calendar) -> Date {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.calendar = calendar
        formatter.timeZone = calendar.timeZone
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.date(from: text)!
    }
}

let socialApp = ApplicationToken(opaqueValue: "social")
let gameApp = ApplicationToken(opaqueValue: "game")
let editorApp = ApplicationToken(opaqueValue: "editor")
let gamesCategory = ActivityCategoryToken(opaqueValue: "games")
