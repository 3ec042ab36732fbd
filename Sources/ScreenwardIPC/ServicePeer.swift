import Foundation
import Synchronization

/// The state owner's side of the channel: what it does with each request line.
///
/// `received` is called on the channel's thread; the owner answers (now or later,
/// from any thread) through `peer.send`, and may push to the peer at any time while
/// it is connected.
public protocol ServiceRequestHandler: Sendable {
    func received(frame: Data, from peer: ServicePeer)
    /// The peer is gone: forget what was attached to it.
    func disconnected(_ peer: ServicePeer)
    /// The channel refused a line of the peer's (not a message, or too long) and is
    /// closing the connection. A peer that speaks the protocol never gets here.
    func refused(_ peer: ServicePeer, because reason: String)
}

extension ServiceRequestHandler {
    public func refused(_ peer: ServicePeer, because reason: String) {}
}

/// One connected client, as the owner sees it.
public final class ServicePeer: Sendable, Hashable, CustomStringConvertible {
    private static let counter = Atomic<UInt64>(0)

    /// Unique in this process, for logs and for keying what is attached to a peer.
    public let number: UInt64
    /// Who connected, when the server identifies its peers (the system daemon's does);
    /// nil for the per-user agent's socket, which only its user can reach.
    public let credentials: PeerCredentials?
    private let sendLine: @Sendable (Data) -> Void
    private let isConnected: @Sendable () -> Bool

    public init(
        credentials: PeerCredentials? = nil, send: @escaping @Sendable (Data) -> Void,
        isConnected: @escaping @Sendable () -> Bool
    ) {
        number = Self.counter.add(1, ordering: .relaxed).newValue
        self.credentials = credentials
        sendLine = send
        self.isConnected = isConnected
    }

    /// Sends a reply or push line (thread-safe; dropped when the peer is gone).
    public func send(_ frame: Data) { sendLine(frame) }
    public var connected: Bool { isConnected() }

    public static func == (a: ServicePeer, b: ServicePeer) -> Bool { a.number == b.number }
    public func hash(into hasher: inout Hasher) { hasher.combine(number) }
    public var description: String {
        if let credentials { return "client connection #\(number), \(credentials)" }
        return "client connection #\(number)"
    }
}
