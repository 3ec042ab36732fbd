import Glibc
import NIOCore
import ScreenwardIPC

/// Reads `SO_PEERCRED` of a connected Unix socket: the pid, uid and gid the kernel
/// recorded for the peer when it connected. NIO offers only an untyped getter for it,
/// so the read lives here, in a platform module, with the C type it needs.
public enum PeerCredentialReader {
    public static let read: PeerIdentifier = { channel in
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeFailedFuture(PeerCredentialError.notASocket)
        }
        let future: EventLoopFuture<KernelPeerCredentials> = provider.unsafeGetSocketOption(
            level: .socket, name: .init(rawValue: SO_PEERCRED))
        return future.map { PeerCredentials(pid: $0.pid, uid: $0.uid, gid: $0.gid) }
    }
}

/// Linux's `struct ucred` (which Swift's Glibc module does not export: it needs
/// _GNU_SOURCE): three 32-bit fields in this order, 12 bytes, as getsockopt fills it.
struct KernelPeerCredentials {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}

public enum PeerCredentialError: Error, CustomStringConvertible {
    case notASocket

    public var description: String { "the connection is not a socket whose peer credentials can be read" }
}
