import DeviceActivity
import Foundation

/// A callback that is due, before the gates (presence, order) decide whether it goes out now.
struct DueCallback {
    var due: Date
    var kind: MonitorCallback.Kind
    var event: DeviceActivityEvent.Name?
    /// The event's index in its run, for event callbacks.
    var eventIndex: Int?
    var intervalIndex: Int

    var key: FiringKey { FiringKey(kind: kind, event: event?.rawValue ?? "") }

    /// Due order; ties go in the callbacks' natural order, then by interval and event.
    static func precedes(_ a: DueCallback, _ b: DueCallback) -> Bool {
        if a.due != b.due { return a.due < b.due }
        if a.kind != b.kind { return a.kind < b.kind }
        if a.intervalIndex != b.intervalIndex { return a.intervalIndex < b.intervalIndex }
        return (a.event?.rawValue ?? "") < (b.event?.rawValue ?? "")
    }
}

/// An event with its threshold worked out once (DateComponents arithmetic is not free).
struct WatchedEvent: Sendable {
    var name: DeviceActivityEvent.Name
    var event: DeviceActivityEvent
    /// Nil when the threshold is not a positive span of time: such an event never fires.
    var threshold: TimeInterval?
    var includesPastActivity: Bool

    init(name: DeviceActivityEvent.Name, event: DeviceActivityEvent) {
        self.name = name
        self.event = event
        threshold = event.thresholdDuration
        includesPastActivity = event.includesPastActivity
    }
}

/// What a schedule means in one calendar from one frontier: the warning offset and
/// the next interval to take up. Each costs calendar searches and changes only with
/// the time zone or the frontier, so the engine keeps it between calls.
struct ScheduleView {
    var warning: TimeInterval?
    var next: DateInterval?
}

/// One registration as the engine runs it: its open intervals and how far the
/// schedule has been taken up. All of it is a pure function of the registration,
/// the calendar, `now`, the usage, and what has fired.
struct ActivityRun: Sendable {
    var registrationID: Int64
    var activity: MonitoredActivity
    /// Intervals taken up and not yet ended (usually one; two when the next one's
    /// start warning comes before this one ends).
    var open: [OpenInterval]
    /// The end of the latest interval taken up; later intervals start at or after it,
    /// so nothing is taken up twice, whatever the wall clock does.
    var frontier: Date?
    /// The activity's events in name order, so every run evaluates (and reports) them alike.
    let events: [WatchedEvent]
    let schedule: DeviceActivitySchedule
    let registeredAt: Date

    init(registrationID: Int64, activity: MonitoredActivity, open: [OpenInterval], frontier: Date?) {
        self.registrationID = registrationID
        self.activity = activity
        self.frontier = frontier
        let events = activity.sortedEvents.map(WatchedEvent.init)
        self.events = events
        self.open = open.map { interval in
            var indexed = interval
            indexed.index(by: events)
            return indexed
        }
        schedule = activity.schedule
        registeredAt = activity.registeredAt
    }

    /// At most this many intervals are taken up per call, so a clock jumped years
    /// ahead costs bounded work each time (the caller comes back at once for more).
    static let intervalsPerCall = 64

    // MARK: Intervals

    /// What the schedule means in `calendar` from the current frontier.
    func view(calendar: Calendar) -> ScheduleView {
        ScheduleView(warning: schedule.warningDuration(calendar: calendar), next: nextInterval(calendar: calendar))
    }

    /// The next interval to take up, in `calendar` (the current time zone).
    func nextInterval(calendar: Calendar) -> DateInterval? {
        guard let frontier else {
            // The first one: running at registration (it starts at once), or the next.
            return schedule.interval(containingOrAfter: registeredAt, calendar: calendar)
        }
        guard schedule.repeats else { return nil }
        guard var candidate = schedule.interval(containingOrAfter: frontier, calendar: calendar) else { return nil }
        // An interval that began before the previous one ended (after a time-zone
        // change, or with an end rarer than the start) would overlap it: skip to the next.
        for _ in 0..<8 {
            if candidate.start >= frontier { return candidate }
            guard let later = schedule.interval(containingOrAfter: candidate.end, calendar: calendar) else {
                return nil
            }
            candidate = later
        }
        return nil
    }

    /// When an interval callback is due, or nil when it has no place in this interval.
    /// Nothing is due before the registration that asked for it.
    func due(_ kind: MonitorCallback.Kind, of interval: DateInterval, warning: TimeInterval?) -> Date? {
        let started = max(interval.start, registeredAt)
        switch kind {
        case .intervalWillStartWarning:
            // Registered inside the interval: it has not "will start" any more.
            guard let warning, interval.start > registeredAt else { return nil }
            return max(interval.start.addingTimeInterval(-warning), registeredAt)
        case .intervalDidStart:
            return started
        case .intervalWillEndWarning:
            guard let warning else { return nil }
            return max(interval.end.addingTimeInterval(-warning), started)
        case .intervalDidEnd:
            return interval.end
        case .eventWillReachThresholdWarning, .eventDidReachThreshold:
            return nil
        }
    }

    static let intervalKinds: [MonitorCallback.Kind] = [
        .intervalWillStartWarning, .intervalDidStart, .intervalWillEndWarning, .intervalDidEnd,
    ]

    /// The first instant anything of `interval` can be due: when it is taken up.
    func firstDue(of interval: DateInterval, warning: TimeInterval?) -> Date? {
        var first: Date?
        for kind in Self.intervalKinds {
            if let due = due(kind, of: interval, warning: warning), first.map({ due < $0 }) ?? true { first = due }
        }
        return first
    }

    /// Whether an interval is due to be taken up by `now`.
    func hasIntervalToTakeUp(now: Date, view: ScheduleView) -> Bool {
        guard let next = view.next, let first = firstDue(of: next, warning: view.warning) else { return false }
        return first <= now
    }

    /// Takes up every interval whose first callback is due by `now`; returns them,
    /// and the view from the new frontier (what `view(calendar:)` would now say).
    /// `view` is what the schedule means in `calendar` from the current frontier.
    mutating func takeUpIntervals(now: Date, calendar: Calendar, view: ScheduleView) -> (
        taken: [DateInterval], view: ScheduleView
    ) {
        var taken: [DateInterval] = []
        var candidate = view.next
        while taken.count < Self.intervalsPerCall, let next = candidate,
            let first = firstDue(of: next, warning: view.warning), first <= now
        {
            var taking = OpenInterval(interval: next, fired: [])
            taking.index(by: events)
            open.append(taking)
            frontier = next.end
            taken.append(next)
            candidate = nextInterval(calendar: calendar)
        }
        return (taken, ScheduleView(warning: view.warning, next: candidate))
    }

    // MARK: Events

    /// Where an event's usage starts counting in `interval`.
    func countingStart(includesPastActivity: Bool, in interval: DateInterval) -> Date {
        includesPastActivity ? interval.start : max(interval.start, registeredAt)
    }

    /// The usage at which an event callback is due: the threshold, or `warning` before it.
    static func level(_ kind: MonitorCallback.Kind, of event: WatchedEvent, warning: TimeInterval?) -> TimeInterval? {
        guard let threshold = event.threshold else { return nil }
        switch kind {
        case .eventDidReachThreshold: return threshold
        case .eventWillReachThresholdWarning: return warning.map { max(0, threshold - $0) }
        default: return nil
        }
    }

    static let eventKinds: [MonitorCallback.Kind] = [.eventWillReachThresholdWarning, .eventDidReachThreshold]

    /// Forgets every usage measured (`UsageMark`): usage grew faster than a second a second.
    mutating func forgetMeasurements() {
        for index in open.indices {
            open[index].measured = Array(repeating: nil, count: open[index].measured.count)
        }
    }

    // MARK: What is due

    /// Every callback due by `now` that has not fired, before the gates. `usages`
    /// holds each event's usage, in the order of `events`.
    ///
    /// Each event's usage is measured at most once per call, and not at all while an
    /// earlier measurement proves every level it waits for still out of reach
    /// (`UsageMark`): most events on most focus changes. Such an event would have
    /// been found not to cross, so what is due is the same.
    mutating func dueCallbacks(now: Date, warning: TimeInterval?, usages: [any EventUsage]) -> [DueCallback] {
        var found: [DueCallback] = []
        for index in open.indices {
            let interval = open[index].interval
            for kind in Self.intervalKinds where !open[index].hasFired(kind) {
                if let due = due(kind, of: interval, warning: warning), due <= now {
                    found.append(DueCallback(due: due, kind: kind, event: nil, intervalIndex: index))
                }
            }
            let upTo = min(now, interval.end)
            for eventIndex in events.indices {
                let from = countingStart(includesPastActivity: events[eventIndex].includesPastActivity, in: interval)
                guard upTo >= from,
                    let lowest = lowestPendingLevel(of: eventIndex, in: open[index], warning: warning)
                else { continue }
                let target = lowest - ThresholdCrossing.tolerance
                if target > 0, open[index].measured[eventIndex]?.staysBelow(target, upTo: upTo) == true { continue }
                var used: TimeInterval?
                for kind in Self.eventKinds where !open[index].hasFired(kind, event: eventIndex) {
                    guard let level = Self.level(kind, of: events[eventIndex], warning: warning) else { continue }
                    if used == nil && level - ThresholdCrossing.tolerance > 0 {
                        let measured = usages[eventIndex].focusedSeconds(from: from, to: upTo)
                        open[index].measured[eventIndex] = UsageMark(at: upTo, used: measured)
                        used = measured
                    }
                    guard
                        let crossing = ThresholdCrossing.find(
                            level: level, from: from, upTo: upTo, used: used, usage: usages[eventIndex])
                    else { continue }
                    // With past activity the crossing may precede the registration: due at once.
                    found.append(
                        DueCallback(
                            due: max(crossing, registeredAt), kind: kind, event: events[eventIndex].name,
                            eventIndex: eventIndex,
                            intervalIndex: index))
                }
            }
        }
        return found.count > 1 ? found.sorted(by: DueCallback.precedes) : found
    }

    /// The lowest usage level an event still waits for in `open`, nil when none.
    private func lowestPendingLevel(of eventIndex: Int, in open: OpenInterval, warning: TimeInterval?) -> TimeInterval?
    {
        var lowest: TimeInterval?
        for kind in Self.eventKinds where !open.hasFired(kind, event: eventIndex) {
            if let level = Self.level(kind, of: events[eventIndex], warning: warning),
                lowest.map({ level < $0 }) ?? true
            {
                lowest = level
            }
        }
        return lowest
    }

    /// The earliest instant after which something may be due, given the usage rate now.
    ///
    /// Each event is asked for its rate once, and for its usage only while accruing
    /// (that measurement is kept for the next `dueCallbacks`).
    mutating func nextDeadline(now: Date, view: ScheduleView, isPresent: Bool, usages: [any EventUsage]) -> Date? {
        let warning = view.warning
        var earliest: Date?
        func consider(_ date: Date?) {
            if let date, earliest.map({ date < $0 }) ?? true { earliest = date }
        }
        // Taking up the next interval fixes its instants, so it happens on time even
        // while the person is away.
        if let next = view.next { consider(firstDue(of: next, warning: warning)) }
        for index in open.indices {
            let interval = open[index].interval
            // Away, interval callbacks wait for the person's return, which the caller reports.
            if isPresent {
                for kind in Self.intervalKinds where !open[index].hasFired(kind) {
                    consider(due(kind, of: interval, warning: warning))
                }
            }
            // Events count only once the interval has started for the app.
            guard open[index].hasFired(.intervalDidStart) else { continue }
            for eventIndex in events.indices {
                guard lowestPendingLevel(of: eventIndex, in: open[index], warning: warning) != nil else { continue }
                let rate = usages[eventIndex].accrualRate(at: now)
                guard rate > 0 else { continue }
                let from = countingStart(includesPastActivity: events[eventIndex].includesPastActivity, in: interval)
                let start = max(usages[eventIndex].accruesFrom(now), from)
                let used = start > from ? usages[eventIndex].focusedSeconds(from: from, to: start) : 0
                open[index].measured[eventIndex] = UsageMark(at: start, used: used)
                for kind in Self.eventKinds where !open[index].hasFired(kind, event: eventIndex) {
                    guard let level = Self.level(kind, of: events[eventIndex], warning: warning) else { continue }
                    let crossing = ThresholdCrossing.predict(level: level, start: start, used: used, rate: rate)
                    if crossing < interval.end { consider(crossing) }
                }
            }
        }
        return earliest
    }
}
