import NIOCore

/// Who is at the other end of a Unix socket, as the kernel saw it when the peer
/// connected (`SO_PEERCRED`): what the system daemon authorizes every request by.
/// A peer cannot lie about these, unlike anything it writes in a request.
public struct PeerCredentials: Sendable, Hashable, Codable, CustomStringConvertible {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32

    public init(pid: Int32, uid: UInt32, gid: UInt32) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }

    public var description: String { "uid \(uid) (pid \(pid))" }
}

/// Reads a connected channel's peer credentials. The real reader lives in the platform
/// module `SystemAccounts` (it is a raw socket option); the server asks it once per
/// connection, on the channel's event loop, before any line is read.
public typealias PeerIdentifier = @Sendable (any Channel) -> EventLoopFuture<PeerCredentials>

/// Who may connect to a listening socket. The per-user agent's socket is the user's
/// alone; the system daemon's is open to every local user, and each request is then
/// authorized by the peer's credentials.
public enum SocketAccess: Sendable {
    /// Mode 0600: only the user who listens.
    case ownerOnly
    /// Mode 0666: any local user may connect; requests must be authorized by peer.
    case everyone

    var mode: Int {
        switch self {
        case .ownerOnly: 0o600
        case .everyone: 0o666
        }
    }
}
