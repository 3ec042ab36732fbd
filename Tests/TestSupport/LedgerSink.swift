import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardCore

/// The ledger, seen from one agent run, written at once on the caller's thread (the
/// agent's own sink writes on a queue of its own: `BackgroundLedgerSink`).
public final class LedgerSink: UsageSink {
    public let ledger: Ledger
    public let sessionID: Int64

    public init(ledger: Ledger, sessionID: Int64) {
        self.ledger = ledger
        self.sessionID = sessionID
    }

    public func intervalOpened(app: AppIdentity, token: ApplicationToken, site: Website?, at start: Date) throws
        -> Int64
    {
        try ledger.openInterval(sessionID: sessionID, app: app, token: token, site: site, startingAt: start)
    }

    public func intervalCheckpointed(_ id: Int64, duration: Duration) throws {
        try ledger.checkpointInterval(id, duration: duration)
    }

    public func intervalClosed(_ id: Int64, duration: Duration, reason: IntervalEndReason) throws {
        try ledger.closeInterval(id, duration: duration, reason: reason)
    }
}
