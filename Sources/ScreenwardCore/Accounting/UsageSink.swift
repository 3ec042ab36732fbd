@_spi(Screenward) import ManagedSettings
import Foundation

/// Where the accountant writes intervals. The ledger is the real one; tests may
/// record calls instead.
public protocol UsageSink: AnyObject {
    func intervalOpened(app: AppIdentity, token: ApplicationToken, at start: Date) throws -> Int64
    func intervalCheckpointed(_ id: Int64, duration: Duration) throws
    func intervalClosed(_ id: Int64, duration: Duration, reason: IntervalEndReason) throws
}

/// The ledger, seen from one agent run.
public final class LedgerSink: UsageSink {
    public let ledger: Ledger
    public let sessionID: Int64

    public init(ledger: Ledger, sessionID: Int64) {
        self.ledger = ledger
        self.sessionID = sessionID
    }

    public func intervalOpened(app: AppIdentity, token: ApplicationToken, at start: Date) throws -> Int64 {
        try ledger.openInterval(sessionID: sessionID, app: app, token: token, startingAt: start)
    }

    public func intervalCheckpointed(_ id: Int64, duration: Duration) throws {
        try ledger.checkpointInterval(id, duration: duration)
    }

    public func intervalClosed(_ id: Int64, duration: Duration, reason: IntervalEndReason) throws {
        try ledger.closeInterval(id, duration: duration, reason: reason)
    }
}
