import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardBasics

/// Turns session events into intervals of application use.
///
/// Time counts for the focused application only while the person is present: not
/// idle, not locked, not asleep. Durations come from the monotonic clock, so a
/// wall-clock change neither creates nor destroys usage; when the wall clock and the
/// monotonic clock disagree (a clock jump, or a suspend the session did not
/// announce), the open interval is split so each part sits right on the calendar.
///
/// Event times may lie a little in the past (the X server stamps events before we
/// read them) and are clamped so that intervals never run backwards.
public final class UsageAccountant {
    public struct OpenInterval: Sendable {
        public var id: Int64
        public var app: AppIdentity
        public var site: Website?
        public var start: ClockReading
        /// The latest reading the interval has been checked against.
        var lastSeen: ClockReading
    }

    /// A disagreement between clocks beyond this is a jump or a suspend, not drift.
    public static let clockDisagreementTolerance: Duration = .seconds(1)

    public private(set) var focused: AppIdentity?
    /// The website on the focused window (the active tab of a focused browser window).
    public private(set) var site: Website?
    public private(set) var isIdle = false
    public private(set) var isLocked = false
    public private(set) var isAsleep = false
    public private(set) var openInterval: OpenInterval?

    /// The latest interval boundary: a new interval never starts before it, so
    /// intervals cannot overlap whatever order stale stamps arrive in.
    private var lastBoundary: ClockReading?
    /// Closes the sink refused (a busy or full disk); retried at every checkpoint.
    private var failedCloses: [(id: Int64, duration: Duration, reason: IntervalEndReason)] = []

    private let sink: any UsageSink
    private let minter: TokenMinter
    private let report: (String) -> Void

    /// - Parameter report: receives problems worth logging (a failed write); the
    ///   accountant keeps its state and retries with the next event.
    public init(sink: any UsageSink, minter: TokenMinter, report: @escaping (String) -> Void = { _ in }) {
        self.sink = sink
        self.minter = minter
        self.report = report
    }

    /// Whether time is being counted now; the agent checkpoints only then.
    public var isCounting: Bool { focused != nil && !isIdle && !isLocked && !isAsleep }

    // MARK: Events

    /// The focus moved to `app` (nil: no window has the focus), showing `site` (a browser
    /// window's active tab).
    public func focusChanged(to app: AppIdentity?, site: Website? = nil, at time: ClockReading) {
        if app?.key == focused?.key, site == self.site {
            focused = app  // same application, perhaps a new name: keep the interval
            return
        }
        closeOpenInterval(at: time, reason: app?.key == focused?.key ? .siteChange : .focusChange)
        focused = app
        self.site = app == nil ? nil : site
        openIfCounting(at: time)
    }

    /// The focused window now shows `site` (the browser's active tab changed, or it went
    /// to another website); the application is the same.
    public func siteChanged(to site: Website?, at time: ClockReading) {
        guard focused != nil, site != self.site else { return }
        closeOpenInterval(at: time, reason: .siteChange)
        self.site = site
        openIfCounting(at: time)
    }

    /// The person stopped using the machine; their last input was at `lastInput`,
    /// and that is where the interval ends, not when the idleness was noticed.
    public func userWentIdle(lastInput: ClockReading) {
        guard !isIdle else { return }
        closeOpenInterval(at: lastInput, reason: .idle)
        isIdle = true
    }

    public func userReturned(at time: ClockReading) {
        guard isIdle else { return }
        isIdle = false
        openIfCounting(at: time)
    }

    public func lockChanged(isLocked locked: Bool, at time: ClockReading) {
        guard locked != isLocked else { return }
        if locked { closeOpenInterval(at: time, reason: .locked) }
        isLocked = locked
        if !locked { openIfCounting(at: time) }
    }

    /// The session announced a suspend (logind PrepareForSleep) or the resume.
    public func sleepChanged(isAsleep asleep: Bool, at time: ClockReading) {
        guard asleep != isAsleep else { return }
        if asleep { closeOpenInterval(at: time, reason: .suspend) }
        isAsleep = asleep
        if !asleep { openIfCounting(at: time) }
    }

    /// Saves the open interval's length so far (the agent calls this every second
    /// while counting) and splits it when the clocks disagree.
    public func checkpoint(at time: ClockReading) {
        retryFailedCloses()
        guard let open = openInterval else {
            openIfCounting(at: time)  // an earlier attempt failed: start counting from here
            return
        }
        if splitIfClocksDisagree(at: time) { return }
        let duration = elapsed(in: open, until: time)
        do {
            try sink.intervalCheckpointed(open.id, duration: duration)
            openInterval?.lastSeen = time
        } catch {
            report("could not save the open interval of \(open.app.publicID): \(error)")
        }
    }

    /// Ends the open interval for good (the agent is stopping or lost its display).
    public func stop(at time: ClockReading, reason: IntervalEndReason) {
        closeOpenInterval(at: time, reason: reason)
        retryFailedCloses()
        focused = nil
        site = nil
    }

    // MARK: Intervals

    private func openIfCounting(at requested: ClockReading) {
        guard isCounting, openInterval == nil, let app = focused else { return }
        var time = requested
        if let boundary = lastBoundary, boundary.monotonic > time.monotonic { time = boundary }
        lastBoundary = time
        do {
            let id = try sink.intervalOpened(
                app: app, token: minter.applicationToken(for: app), site: site, at: time.wall)
            openInterval = OpenInterval(id: id, app: app, site: site, start: time, lastSeen: time)
        } catch {
            report("could not start an interval for \(app.publicID): \(error)")
        }
    }

    /// Durations are monotonic and the row's end is its start plus its duration, so
    /// closing needs no split even if the clocks disagreed since the last checkpoint.
    private func closeOpenInterval(at time: ClockReading, reason: IntervalEndReason) {
        guard let open = openInterval else { return }
        finish(open, at: time, reason: reason)
    }

    private func finish(_ interval: OpenInterval, at requested: ClockReading, reason: IntervalEndReason) {
        let time = requested.monotonic < interval.start.monotonic ? interval.start : requested
        lastBoundary = time
        let duration = elapsed(in: interval, until: time)
        do {
            try sink.intervalClosed(interval.id, duration: duration, reason: reason)
        } catch {
            // Left open, the row would keep growing in reports: try again later.
            report("could not close the interval of \(interval.app.publicID): \(error); will retry")
            failedCloses.append((interval.id, duration, reason))
        }
        openInterval = nil
    }

    private func retryFailedCloses() {
        failedCloses = failedCloses.filter { id, duration, reason in
            (try? sink.intervalClosed(id, duration: duration, reason: reason)) == nil
        }
    }

    /// Monotonic time from the interval's start to `time`, never negative.
    private func elapsed(in interval: OpenInterval, until time: ClockReading) -> Duration {
        max(.zero, interval.start.monotonic.duration(to: time.monotonic))
    }

    /// Splits the open interval at `time` when, since it was last seen, the wall
    /// clock moved differently from the boot clock (a clock change) or the boot clock
    /// moved differently from the monotonic clock (an unannounced suspend).
    /// Returns whether it split.
    private func splitIfClocksDisagree(at time: ClockReading) -> Bool {
        guard let open = openInterval else { return false }
        let monotonic = open.lastSeen.monotonic.duration(to: time.monotonic)
        let continuous = open.lastSeen.continuous.duration(to: time.continuous)
        let wall = Duration.seconds(time.wall.timeIntervalSince(open.lastSeen.wall))
        let suspended = continuous - monotonic
        let wallJump = wall - continuous
        let tolerance = Self.clockDisagreementTolerance
        let reason: IntervalEndReason
        if suspended > tolerance {
            reason = .suspend
        } else if wallJump > tolerance || wallJump < .zero - tolerance {
            reason = .clockJump
        } else {
            return false
        }
        report(
            """
            \(reason == .suspend ? "suspend of \(suspended.seconds) s" : "wall clock jump of \(wallJump.seconds) s") \
            detected; splitting the open interval
            """
        )
        finish(open, at: time, reason: reason)
        openIfCounting(at: time)
        return true
    }
}
