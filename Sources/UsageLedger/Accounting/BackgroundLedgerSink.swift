import Dispatch
import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardBasics
import Synchronization

/// The agent's sink: ledger writes happen in order on a writer thread, never on the
/// event loop. A write can take a disk's fsync (SQLite checkpoints its WAL now and
/// then); on the loop that would delay reading `_NET_ACTIVE_WINDOW`, and a
/// window held for less than the delay would be missed.
///
/// Interval ids are handed out here, so opening an interval needs no round trip.
/// A failed write stays queued, in order, and is retried before the next one.
public final class BackgroundLedgerSink: UsageSink, Sendable {
    private let ledger: Ledger
    private let sessionID: Int64
    private let queue = DispatchQueue(label: "screenward.ledger-writer")
    private let report: @Sendable (String) -> Void

    private struct State {
        var nextID: Int64
        var backlog: [@Sendable () throws -> Void] = []
        var failing = false
    }
    private let state: Mutex<State>

    public init(ledger: Ledger, sessionID: Int64, report: @escaping @Sendable (String) -> Void) throws {
        self.ledger = ledger
        self.sessionID = sessionID
        self.report = report
        state = Mutex(State(nextID: try ledger.nextIntervalID()))
    }

    public func intervalOpened(app: AppIdentity, token: ApplicationToken, site: Website?, at start: Date) -> Int64 {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        let (ledger, sessionID) = (self.ledger, self.sessionID)
        enqueue {
            try ledger.openInterval(id: id, sessionID: sessionID, app: app, token: token, site: site, startingAt: start)
        }
        return id
    }

    /// An interval on no website (this sink never throws).
    public func intervalOpened(app: AppIdentity, token: ApplicationToken, at start: Date) -> Int64 {
        intervalOpened(app: app, token: token, site: nil, at: start)
    }

    public func intervalCheckpointed(_ id: Int64, duration: Duration) {
        let ledger = self.ledger
        enqueue { try ledger.checkpointInterval(id, duration: duration) }
    }

    public func intervalClosed(_ id: Int64, duration: Duration, reason: IntervalEndReason) {
        let ledger = self.ledger
        enqueue { try ledger.closeInterval(id, duration: duration, reason: reason) }
    }

    /// Queues any other write (the agent's status) behind the intervals.
    public func write(_ write: @escaping @Sendable (Ledger) throws -> Void) {
        let ledger = self.ledger
        enqueue { try write(ledger) }
    }

    /// Waits until every write so far has been tried (before the process exits).
    public func flush() {
        queue.sync { drain() }
    }

    /// How many writes are waiting because the ledger refused them.
    public var backlogCount: Int { state.withLock { $0.backlog.count } }

    private func enqueue(_ write: @escaping @Sendable () throws -> Void) {
        state.withLock { $0.backlog.append(write) }
        queue.async { [self] in drain() }
    }

    /// Runs queued writes in order until one fails; that one waits for the next try.
    private func drain() {
        while let write = state.withLock({ $0.backlog.first }) {
            do {
                try write()
                let recovered = state.withLock { state in
                    state.backlog.removeFirst()
                    defer { state.failing = false }
                    return state.failing
                }
                if recovered { report("the ledger accepts writes again") }
            } catch {
                let first = state.withLock { state in
                    defer { state.failing = true }
                    return !state.failing
                }
                if first { report("could not write to the ledger (\(error)); keeping the writes and retrying") }
                return
            }
        }
    }
}
