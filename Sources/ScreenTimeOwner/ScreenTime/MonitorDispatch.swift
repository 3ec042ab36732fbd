@_spi(Screenward) import DeviceActivity
import Foundation
import GRDB
import ScreenTimePolicy
import ScreenwardIPC
import UsageLedger

/// A line for a connected client, sent once the owner has finished the step that
/// produced it (so a monitor that reacts by calling the owner never re-enters it).
public struct Delivery: Sendable {
    public let peer: ServicePeer
    public let line: Data

    package init(peer: ServicePeer, line: Data) {
        self.peer = peer
        self.line = line
    }

    public func send() { peer.send(line) }
}

/// A callback in its owner's outbox, as the line its monitor receives.
public struct QueuedCallback: Sendable {
    public let owner: String
    public let line: Data
}

/// Where the engine's callbacks go: to the monitor of the app that registered them.
///
/// Today a monitor is code in the app's own process (or in the agent, for built-in
/// rules) attached through a client connection. Monitors the agent starts as
/// separate extension processes would be another implementation of this protocol.
public protocol MonitorDispatch: AnyObject {
    /// Queues each callback for its owner's monitor, inside the transaction `db` that
    /// records it as fired (a crash cannot leave a callback fired but never queued).
    func queue(_ callbacks: [MonitorCallback], at now: Date, in db: Database) throws -> [QueuedCallback]
    /// Of what was queued (and committed), what can be sent now.
    func deliveries(of queued: [QueuedCallback]) -> [Delivery]
    /// `peer` is `owner`'s monitor from now on; returns the callbacks still owed to it,
    /// each saying it was sent `now` (and so late, if it was due more than a second ago).
    func attach(owner: String, peer: ServicePeer, at now: Date) throws -> [Delivery]
    func acknowledge(owner: String, sequences: [Int64]) throws
    func detach(_ peer: ServicePeer)
    /// Whether `owner` has a monitor attached on a live connection.
    func hasMonitor(owner: String) -> Bool
}

/// Callbacks go into the ledger's outbox first, then to the owner's most recently
/// attached monitor; they stay there until acknowledged, so a monitor that was not
/// running (or died) receives them when it attaches.
public final class ConnectedMonitors: MonitorDispatch {
    private let ledger: Ledger
    private var attached: [String: ServicePeer] = [:]

    public init(ledger: Ledger) {
        self.ledger = ledger
    }

    public func queue(_ callbacks: [MonitorCallback], at now: Date, in db: Database) throws -> [QueuedCallback] {
        try callbacks.map { callback in
            var line = Data()
            _ = try Ledger.appendToOutbox(db, client: callback.owner, at: now) { sequence in
                line = try ActivityMethods.callback.frame(callback.message(sequence: sequence))
                return line
            }
            return QueuedCallback(owner: callback.owner, line: line)
        }
    }

    public func deliveries(of queued: [QueuedCallback]) -> [Delivery] {
        queued.compactMap { item in
            guard let peer = attached[item.owner], peer.connected else { return nil }
            return Delivery(peer: peer, line: item.line)
        }
    }

    public func attach(owner: String, peer: ServicePeer, at now: Date) throws -> [Delivery] {
        attached[owner] = peer
        return try ledger.outbox(client: owner).map { Delivery(peer: peer, line: Self.resent($0.message, at: now)) }
    }

    /// A queued callback as sent again at `now`: its context tells when it was really
    /// sent. A line that cannot be read goes out as it is.
    static func resent(_ line: Data, at now: Date) -> Data {
        guard var message = try? ActivityMethods.callback.body(from: line) else { return line }
        message.context.deliveredAt = now
        message.context.isLate =
            message.context.isLate
            || now.timeIntervalSince(message.context.scheduledAt) > MonitorCallback.latenessTolerance
        return (try? ActivityMethods.callback.frame(message)) ?? line
    }

    public func acknowledge(owner: String, sequences: [Int64]) throws {
        try ledger.acknowledge(client: owner, sequences: sequences)
    }

    public func detach(_ peer: ServicePeer) {
        attached = attached.filter { $0.value != peer }
    }

    public func hasMonitor(owner: String) -> Bool {
        attached[owner]?.connected == true
    }
}

extension MonitorCallback {
    @_spi(Screenward) public func message(sequence: Int64) -> MonitorCallbackMessage {
        MonitorCallbackMessage(
            sequence: sequence, activity: activity, kind: kind.messageKind, event: event,
            context: DeviceActivityCallbackContext(
                interval: interval, scheduledAt: scheduledAt, deliveredAt: deliveredAt, isLate: isLate))
    }
}

extension MonitorCallback.Kind {
    var messageKind: MonitorCallbackMessage.Kind {
        switch self {
        case .intervalWillStartWarning: .intervalWillStartWarning
        case .intervalDidStart: .intervalDidStart
        case .eventWillReachThresholdWarning: .eventWillReachThresholdWarning
        case .eventDidReachThreshold: .eventDidReachThreshold
        case .intervalWillEndWarning: .intervalWillEndWarning
        case .intervalDidEnd: .intervalDidEnd
        }
    }
}
