import Foundation
import ScreenwardIPC

/// A socket's side of a state owner that lives on the loop: each line and each ended or
/// refused connection arrives on the socket's threads and is handed, through one
/// `LoopMailbox`, to `handle` on the loop's thread, in the order it came.
public final class RequestsOnLoop: ServiceRequestHandler {
    public enum Arrival: Sendable {
        case frame(Data, ServicePeer)
        case gone(ServicePeer)
        case refused(ServicePeer, because: String)
    }

    private let mailbox: LoopMailbox<Arrival>

    public init(_ handle: @escaping (Arrival) -> Void) {
        mailbox = LoopMailbox { arrivals in
            for arrival in arrivals { handle(arrival) }
        }
    }

    /// Hands everything to `handler` on the loop: an owner that takes no lock because it is
    /// only ever used there.
    public convenience init(onLoop handler: any ServiceRequestHandler) {
        self.init { arrival in
            switch arrival {
            case .frame(let frame, let peer): handler.received(frame: frame, from: peer)
            case .gone(let peer): handler.disconnected(peer)
            case .refused(let peer, let reason): handler.refused(peer, because: reason)
            }
        }
    }

    public func received(frame: Data, from peer: ServicePeer) { mailbox.post(.frame(frame, peer)) }
    public func disconnected(_ peer: ServicePeer) { mailbox.post(.gone(peer)) }
    public func refused(_ peer: ServicePeer, because reason: String) { mailbox.post(.refused(peer, because: reason)) }
}
