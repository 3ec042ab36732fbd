import Foundation
import Synchronization

/// A transport to an owner in the same process: the same lines, no socket.
///
/// The owner must answer before `received` returns (an owner on its own loop
/// answers inline when called on that loop). Pushes reach the receiver inline too,
/// so a test with a controllable clock sees each callback happen within the step
/// that caused it, unless `deferPushes` hands them to a loop: an app built into the
/// owner (our rules) must not be re-entered by a push while it is in a call.
public final class DirectTransport: ServiceTransport {
    private let handler: any ServiceRequestHandler
    private let deferPushes: (@Sendable (@escaping @Sendable () -> Void) -> Void)?
    private let state = Mutex(State())
    private struct State {
        var replies: [UInt64: Data] = [:]
        var pushReceiver: (@Sendable (Data) -> Void)?
        var pushReceivers: [String: @Sendable (Data) -> Void] = [:]
        var connected = true

        func receiver(for kind: String?) -> (@Sendable (Data) -> Void)? {
            kind.flatMap { pushReceivers[$0] } ?? pushReceiver
        }
    }
    private let peerBox = Mutex<ServicePeer?>(nil)

    public init(
        handler: any ServiceRequestHandler, deferPushes: (@Sendable (@escaping @Sendable () -> Void) -> Void)? = nil
    ) {
        self.handler = handler
        self.deferPushes = deferPushes
    }

    /// This transport as the owner sees it.
    public var peer: ServicePeer {
        peerBox.withLock { box in
            if let peer = box { return peer }
            let peer = ServicePeer(
                send: { [weak self] line in self?.deliver(line) },
                isConnected: { [weak self] in self?.state.withLock(\.connected) ?? false })
            box = peer
            return peer
        }
    }

    public func exchange(requestID: UInt64, frame: Data, timeout: Duration) throws -> Data {
        handler.received(frame: frame, from: peer)
        guard let reply = state.withLock({ $0.replies.removeValue(forKey: requestID) }) else {
            throw ServiceError(
                .internalFailure,
                Phrase(
                    "the in-process owner did not answer request {id} before returning", context: "connection",
                    ["id": "\(requestID)"]))
        }
        return reply
    }

    public func setPushReceiver(_ receiver: @escaping @Sendable (Data) -> Void) {
        state.withLock { $0.pushReceiver = receiver }
    }

    public func setPushReceiver(forKind kind: String, _ receiver: @escaping @Sendable (Data) -> Void) {
        state.withLock { $0.pushReceivers[kind] = receiver }
    }

    /// Nothing to reconnect in-process.
    public func resendOnReconnect(_ makeFrame: @escaping @Sendable (UInt64) -> Data?) {}

    /// Disconnects, as a client process that exits would.
    public func disconnect() {
        state.withLock { $0.connected = false }
        handler.disconnected(peer)
    }

    private func deliver(_ line: Data) {
        guard let head = try? FrameHead.decode(from: line) else { return }
        if let id = head.id {
            state.withLock { $0.replies[id] = line }
        } else if let receiver = state.withLock({ $0.connected ? $0.receiver(for: head.push) : nil }) {
            if let deferPushes { deferPushes { receiver(line) } } else { receiver(line) }
        }
    }
}
