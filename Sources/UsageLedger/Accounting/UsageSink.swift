import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardBasics

/// Where the accountant writes intervals: the ledger, through `BackgroundLedgerSink`, or
/// the daemon through the managed agent's reports; tests write to a ledger directly
/// (TestSupport's `LedgerSink`) or record the calls.
public protocol UsageSink: AnyObject {
    /// An interval of `app`'s use begins; with `site`, on that website (the active tab of
    /// the focused browser window), which the interval then counts for too.
    func intervalOpened(app: AppIdentity, token: ApplicationToken, site: Website?, at start: Date) throws -> Int64
    func intervalCheckpointed(_ id: Int64, duration: Duration) throws
    func intervalClosed(_ id: Int64, duration: Duration, reason: IntervalEndReason) throws
}

extension UsageSink {
    /// An interval on no website.
    public func intervalOpened(app: AppIdentity, token: ApplicationToken, at start: Date) throws -> Int64 {
        try intervalOpened(app: app, token: token, site: nil, at: start)
    }
}
