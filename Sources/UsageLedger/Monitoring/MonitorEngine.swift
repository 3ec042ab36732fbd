import DeviceActivity
import Foundation
import GRDB

/// A write made in the transaction that records a step's callbacks (queueing them for
/// their monitors), so that no crash can separate "fired" from "queued".
public typealias AlongsideWrite = ([MonitorCallback], Database) throws -> Void

/// Runs registered activities: decides which `DeviceActivityMonitor` callbacks are
/// due, exactly once per interval, and when the next one can be.
///
/// The engine is single-threaded and keeps no timers: its caller (the agent) asks
/// `takeDue` for what is due, delivers it, and sleeps until `nextDeadline`. The
/// caller calls both again whenever the focus, the person's presence, the time zone
/// or the wall clock changes, since predictions of threshold crossings hold only
/// while the focus stays put. Everything the engine decides is written to the ledger
/// before it is handed out, so a restarted engine neither repeats nor skips a callback;
/// a caller's `alongside` write (the outbox) joins that same transaction.
///
/// The rules:
/// - An interval is *taken up* when its first callback is due (its start warning, or
///   its start); from then on its instants are fixed, so a time-zone change moves
///   only intervals not yet taken up. Each registration keeps a frontier, the end of
///   the latest interval taken up, and later intervals start at or after it: a wall
///   clock set back replays nothing, and an interval that would overlap the previous
///   one after a zone change is skipped.
/// - Within an interval each callback fires once (the ledger's primary key says so).
///   Nothing is due before the registration that asked for it, except that an
///   interval running at registration starts at once and, with
///   `includesPastActivity`, a threshold crossed before registration is due at it.
/// - Interval callbacks wait while the person is away; event callbacks wait for their
///   interval's `intervalDidStart`. Whatever was missed (downtime, a jump forward, a
///   suspend, an absence) is delivered on the next call, in order, marked late, one
///   interval after another however many were missed (at most
///   `ActivityRun.intervalsPerCall` per call; the deadline is then already past).
/// - A replaced or stopped registration owes `intervalDidEnd` only for intervals
///   whose start the app was told of, and its records go with it.
public final class MonitorEngine {
    private let ledger: Ledger
    private let usage: any EventUsageSource
    /// In registration order.
    private var runs: [ActivityRun]
    /// Each run's events' usage from the source, by registration, in the run's event order.
    private var eventUsages: [Int64: [any EventUsage]] = [:]
    /// The calendar `views` are seen in; another one empties them.
    private var viewCalendar: Calendar?
    /// Each run's schedule seen in `viewCalendar`, from its frontier then.
    private var views: [Int64: (frontier: Date?, view: ScheduleView)] = [:]

    /// Resumes from what `ledger` holds (nothing, the first time).
    public init(ledger: Ledger, usage: any EventUsageSource) throws {
        self.ledger = ledger
        self.usage = usage
        runs = try ledger.monitorRuns()
        for run in runs { eventUsages[run.registrationID] = run.events.map { usage.usage(of: $0.event) } }
    }

    /// Every registered activity, in registration order.
    public var activities: [MonitoredActivity] { runs.map(\.activity) }

    public func activity(_ name: DeviceActivityName, owner: String) -> MonitoredActivity? {
        runs.first { $0.activity.owner == owner && $0.activity.name == name }?.activity
    }

    // MARK: Registration

    /// Starts monitoring, replacing any earlier registration of the same name by the
    /// same owner (as Apple's `startMonitoring` does).
    ///
    /// - Returns: `intervalDidEnd` for an interval the replaced registration was
    ///   running. The new registration's own callbacks (its `intervalDidStart` at once
    ///   when registered inside an interval) come from the next `takeDue`.
    @discardableResult
    public func register(
        _ name: DeviceActivityName, owner: String, schedule: DeviceActivitySchedule,
        events: [DeviceActivityEvent.Name: DeviceActivityEvent] = [:], at now: Date, alongside: AlongsideWrite? = nil
    ) throws -> [MonitorCallback] {
        let activity = MonitoredActivity(
            owner: owner, name: name, schedule: schedule, events: events, registeredAt: now)
        let replaced = runs.firstIndex { $0.activity.owner == owner && $0.activity.name == name }
        let ended = replaced.map { endings(of: runs[$0], at: now) } ?? []
        let id = try ledger.replaceMonitorRegistration(activity) { db in try alongside?(ended, db) }
        if let replaced { forget(runs.remove(at: replaced).registrationID) }
        let run = ActivityRun(registrationID: id, activity: activity, open: [], frontier: nil)
        eventUsages[id] = run.events.map { usage.usage(of: $0.event) }
        runs.append(run)
        return ended
    }

    /// Stops monitoring `names` of `owner` (all of the owner's when empty, as Apple's
    /// `stopMonitoring` does).
    ///
    /// - Returns: `intervalDidEnd` for each interval that had started for the app.
    @discardableResult
    public func unregister(_ names: [DeviceActivityName], owner: String, at now: Date, alongside: AlongsideWrite? = nil)
        throws -> [MonitorCallback]
    {
        let stopping = runs.filter { $0.activity.owner == owner && (names.isEmpty || names.contains($0.activity.name)) }
        guard !stopping.isEmpty else { return [] }
        let ended = stopping.flatMap { endings(of: $0, at: now) }
        try ledger.removeMonitorRegistrations(stopping.map(\.registrationID)) { db in try alongside?(ended, db) }
        let ids = Set(stopping.map(\.registrationID))
        runs.removeAll { ids.contains($0.registrationID) }
        for id in ids { forget(id) }
        return ended
    }

    private func forget(_ registrationID: Int64) {
        views[registrationID] = nil
        eventUsages[registrationID] = nil
    }

    /// The ends owed when a registration goes away: only intervals whose start the
    /// app has seen get an end, so the app never sees an end without a start.
    private func endings(of run: ActivityRun, at now: Date) -> [MonitorCallback] {
        run.open.filter { $0.hasFired(.intervalDidStart) }.map { open in
            MonitorCallback(
                owner: run.activity.owner, activity: run.activity.name, kind: .intervalDidEnd, event: nil,
                interval: open.interval, scheduledAt: now, deliveredAt: now)
        }
    }

    // MARK: Running

    /// Everything due by `now`, in order, recorded as fired before it is returned.
    ///
    /// - Parameters:
    ///   - calendar: the user's calendar and time zone now; intervals not yet begun
    ///     follow it, begun ones keep their instants.
    ///   - isPresent: whether the person is using the device. While they are not,
    ///     interval callbacks wait, and come (late, if they are) on their return.
    public func takeDue(now: Date, calendar: Calendar, isPresent: Bool, alongside: AlongsideWrite? = nil) throws
        -> [MonitorCallback]
    {
        useCalendar(calendar)
        var progress = MonitorProgress()
        var delivered: [(callback: MonitorCallback, order: Int)] = []
        // Runs this call changes, applied once the ledger has taken the changes. A run
        // is copied only when something changes in it: most calls change nothing, and
        // copying every run each time cost more than the rest of a focus change.
        var changed: [(index: Int, run: ActivityRun)] = []
        for index in runs.indices {
            let id = runs[index].registrationID
            let view = view(at: index, calendar: calendar)
            let usages = eventUsages(at: index)
            var copy: ActivityRun?
            let dues: [DueCallback]
            if runs[index].hasIntervalToTakeUp(now: now, view: view) {
                var run = runs[index]
                let (taken, nextView) = run.takeUpIntervals(now: now, calendar: calendar, view: view)
                for interval in taken { progress.opened.append((id, interval)) }
                views[id] = (run.frontier, nextView)
                dues = run.dueCallbacks(now: now, warning: view.warning, usages: usages)
                copy = run
            } else {
                // In place: only the run's usage measurements change, and they need no undoing.
                dues = runs[index].dueCallbacks(now: now, warning: view.warning, usages: usages)
            }
            guard copy != nil || !dues.isEmpty else { continue }
            var run = copy ?? runs[index]
            for due in dues {
                let open = run.open[due.intervalIndex]
                if due.kind.isIntervalCallback && !isPresent { continue }
                // An event belongs to an interval the app has been told about.
                if due.kind.isEventCallback && !open.hasFired(.intervalDidStart) { continue }
                run.open[due.intervalIndex].markFired(due.key, eventIndex: due.eventIndex)
                let callback = MonitorCallback(
                    owner: run.activity.owner, activity: run.activity.name, kind: due.kind,
                    event: due.event, interval: open.interval, scheduledAt: due.due, deliveredAt: now)
                progress.fired.append((id, callback))
                delivered.append((callback, delivered.count))
            }
            for open in run.open where open.hasFired(.intervalDidEnd) {
                progress.finished.append((id, open.interval.start))
            }
            run.open.removeAll { $0.hasFired(.intervalDidEnd) }
            changed.append((index, run))
        }
        // Each activity's callbacks are already in order; interleave activities by due time.
        let callbacks = delivered.sorted {
            ($0.callback.scheduledAt, $0.order) < ($1.callback.scheduledAt, $1.order)
        }.map(\.callback)
        if !progress.isEmpty { try ledger.recordMonitorProgress(progress) { db in try alongside?(callbacks, db) } }
        for (index, run) in changed { runs[index] = run }
        return callbacks
    }

    /// Usage grew behind the engine's back (another computer's, read from the household's
    /// database, possibly in the past): what it measured no longer bounds what is used, so it
    /// asks again at the next call.
    public func usageChangedElsewhere() {
        for index in runs.indices { runs[index].forgetMeasurements() }
    }

    /// The earliest instant something can become due: an interval's start, end or
    /// warning, or a threshold crossing predicted from the current focus. Nil when
    /// nothing ever can (until the focus, presence or registrations change).
    ///
    /// While the person is away, interval callbacks are left out: they wait for the
    /// return, which the caller reports by calling `takeDue`.
    public func nextDeadline(now: Date, calendar: Calendar, isPresent: Bool) -> Date? {
        useCalendar(calendar)
        var earliest: Date?
        for index in runs.indices {
            let view = view(at: index, calendar: calendar)
            let usages = eventUsages(at: index)
            if let deadline = runs[index].nextDeadline(now: now, view: view, isPresent: isPresent, usages: usages),
                earliest.map({ deadline < $0 }) ?? true
            {
                earliest = deadline
            }
        }
        return earliest
    }

    /// Forgets the schedule views when the calendar (or its time zone) changed.
    /// Compared once per call rather than once per run: comparing calendars is not free.
    private func useCalendar(_ calendar: Calendar) {
        guard viewCalendar != calendar else { return }
        views.removeAll()
        viewCalendar = calendar
    }

    /// The run's schedule in the current calendar, recomputed only when the calendar
    /// or the frontier has changed: a focus change costs no calendar search.
    private func view(at index: Int, calendar: Calendar) -> ScheduleView {
        let id = runs[index].registrationID
        if let kept = views[id], kept.frontier == runs[index].frontier { return kept.view }
        let view = runs[index].view(calendar: calendar)
        views[id] = (runs[index].frontier, view)
        return view
    }

    private func eventUsages(at index: Int) -> [any EventUsage] {
        let id = runs[index].registrationID
        if let kept = eventUsages[id] { return kept }
        let made = runs[index].events.map { usage.usage(of: $0.event) }
        eventUsages[id] = made
        return made
    }
}

/// What one `takeDue` changed, written in one transaction.
struct MonitorProgress {
    var opened: [(registrationID: Int64, interval: DateInterval)] = []
    var fired: [(registrationID: Int64, callback: MonitorCallback)] = []
    var finished: [(registrationID: Int64, intervalStart: Date)] = []

    var isEmpty: Bool { opened.isEmpty && fired.isEmpty && finished.isEmpty }
}
