import Glibc

/// The process at the other end of a connected Unix socket, as the kernel recorded it when that
/// end listened or connected (`SO_PEERCRED`): a socket someone else put at a compositor's path
/// names their own process, never the compositor.
enum SocketPeer {
    /// Linux's `struct ucred` (Swift's Glibc module leaves it out: it needs _GNU_SOURCE).
    private struct Credentials {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
    }

    static func pid(of descriptor: Int32) -> Int32? {
        var credentials = Credentials()
        var size = socklen_t(MemoryLayout<Credentials>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &size) == 0, credentials.pid > 0 else {
            return nil
        }
        return credentials.pid
    }
}
