import DeviceActivity
import Foundation
@_spi(Screenward) import ManagedSettings
import Synchronization

/// `LiveUsage` behind a lock, so the accountant (on the agent's loop) and the state
/// owner (answering a client on a socket thread) can share it. The lock is almost
/// never contended: both normally run on the loop.
public final class SharedLiveUsage: UsageSink, EventUsageSource, Sendable {
    private let usage: Mutex<LiveUsage>

    public init(forwardingTo sink: BackgroundLedgerSink, categories: ApplicationCategories, horizon: TimeInterval = LiveUsage.defaultHorizon) {
        usage = Mutex(LiveUsage(forwardingTo: sink, categories: categories, horizon: horizon))
    }

    public func seed(from ledger: Ledger, now: Date) throws {
        try usage.withLock { try $0.seed(from: ledger, now: now) }
    }

    public func intervalOpened(app: AppIdentity, token: ApplicationToken, at start: Date) throws -> Int64 {
        try usage.withLock { try $0.intervalOpened(app: app, token: token, at: start) }
    }

    public func intervalCheckpointed(_ id: Int64, duration: Duration) throws {
        try usage.withLock { try $0.intervalCheckpointed(id, duration: duration) }
    }

    public func intervalClosed(_ id: Int64, duration: Duration, reason: IntervalEndReason) throws {
        try usage.withLock { try $0.intervalClosed(id, duration: duration, reason: reason) }
    }

    public func focusedSeconds(of event: DeviceActivityEvent, from: Date, to: Date) -> TimeInterval {
        usage.withLock { $0.focusedSeconds(of: event, from: from, to: to) }
    }

    public func accrualRate(of event: DeviceActivityEvent, at now: Date) -> Double {
        usage.withLock { $0.accrualRate(of: event, at: now) }
    }
}
