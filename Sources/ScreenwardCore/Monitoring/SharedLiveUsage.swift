import DeviceActivity
import Foundation
@_spi(Screenward) import ManagedSettings
import Synchronization

/// `LiveUsage` behind a lock, so the accountant (on the agent's loop) and the state
/// owner (answering a client on a socket thread) can share it. The lock is almost
/// never contended: both normally run on the loop.
public final class SharedLiveUsage: UsageSink, EventUsageSource, Sendable {
    private let usage: Mutex<LiveUsage>

    public init(
        forwardingTo sink: any UsageSink & Sendable, categories: ApplicationCategories, websites: WebsiteTokens = .none,
        horizon: TimeInterval = LiveUsage.defaultHorizon
    ) {
        usage = Mutex(LiveUsage(forwardingTo: sink, categories: categories, websites: websites, horizon: horizon))
    }

    public func seed(from ledger: Ledger, now: Date) throws {
        try usage.withLock { try $0.seed(from: ledger, now: now) }
    }

    public func intervalOpened(app: AppIdentity, token: ApplicationToken, site: Website?, at start: Date) throws
        -> Int64
    {
        try usage.withLock { try $0.intervalOpened(app: app, token: token, site: site, at: start) }
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

    /// The same worked-out members as `LiveUsage`'s own handle, each question asked
    /// under the lock.
    public func usage(of event: DeviceActivityEvent) -> any EventUsage {
        SharedEventUsage(shared: self, event: event)
    }

    fileprivate func withLive<Result: Sendable>(_ body: (LiveUsage) -> Result) -> Result {
        usage.withLock { body($0) }
    }
}

/// Used by the engine alone (under the state owner's lock); its cache is its own.
private final class SharedEventUsage: EventUsage {
    private let shared: SharedLiveUsage
    private var members: EventMembers

    init(shared: SharedLiveUsage, event: DeviceActivityEvent) {
        self.shared = shared
        members = EventMembers(event: event)
    }

    func focusedSeconds(from: Date, to: Date) -> TimeInterval {
        shared.withLive { live in members.focusedSeconds(in: live, from: from, to: to) }
    }

    func accrualRate(at now: Date) -> Double {
        shared.withLive { live in members.accrualRate(in: live, at: now) }
    }
}
