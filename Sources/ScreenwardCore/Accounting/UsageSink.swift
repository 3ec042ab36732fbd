@_spi(Screenward) import ManagedSettings
import Foundation

/// Where the accountant writes intervals. The ledger is the real one; tests may
/// record calls instead.
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

/// The ledger, seen from one agent run.
public final class LedgerSink: UsageSink {
    public let ledger: Ledger
    public let sessionID: Int64

    public init(ledger: Ledger, sessionID: Int64) {
        self.ledger = ledger
        self.sessionID = sessionID
    }

    public func intervalOpened(app: AppIdentity, token: ApplicationToken, site: Website?, at start: Date) throws -> Int64 {
        try ledger.openInterval(sessionID: sessionID, app: app, token: token, site: site, startingAt: start)
    }

    public func intervalCheckpointed(_ id: Int64, duration: Duration) throws {
        try ledger.checkpointInterval(id, duration: duration)
    }

    public func intervalClosed(_ id: Int64, duration: Duration, reason: IntervalEndReason) throws {
        try ledger.closeInterval(id, duration: duration, reason: reason)
    }
}
