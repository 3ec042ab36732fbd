import Foundation
import Glibc

/// Whom a process's Unix sockets are connected to, as the kernel's socket diagnostics tell
/// (`NETLINK_SOCK_DIAG`'s `UNIX_DIAG_PEER`, what `ss -xp` reads): `/proc/PID/fd` names each
/// socket by its inode, and nothing in `/proc` names the other end. The daemon asks it of an
/// Xwayland: one connected to a session's compositor draws through it, and is that session's.
public enum UnixSocketPeers {
    /// The socket inodes among `pid`'s descriptors.
    public static func socketInodes(of pid: Int32, procRoot: String = "/proc") -> Set<UInt32> {
        let folder = "\(procRoot)/\(pid)/fd"
        var inodes: Set<UInt32> = []
        for descriptor in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            guard let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\(descriptor)"),
                link.hasPrefix("socket:["), let inode = UInt32(link.dropFirst(8).dropLast())
            else { continue }
            inodes.insert(inode)
        }
        return inodes
    }

    /// Whether some socket of `client` is connected to a socket `server` holds.
    public static func isConnected(_ client: Int32, to server: Int32, procRoot: String = "/proc") -> Bool {
        let servers = socketInodes(of: server, procRoot: procRoot)
        guard !servers.isEmpty else { return false }
        guard let diagnostics = Diagnostics() else { return false }
        return socketInodes(of: client, procRoot: procRoot).contains { inode in
            diagnostics.peer(of: inode).map(servers.contains) ?? false
        }
    }

    /// The inode of the socket connected to socket `inode`, if it is a connected Unix socket.
    public static func peer(of inode: UInt32) -> UInt32? {
        Diagnostics()?.peer(of: inode)
    }

    /// One netlink socket of the kernel's socket diagnostics (linux/sock_diag.h, unix_diag.h).
    private final class Diagnostics {
        private static let netlinkSockDiag: Int32 = 4
        private static let sockDiagByFamily: UInt16 = 20
        private static let requestFlag: UInt16 = 1
        private static let errorMessage: UInt16 = 2
        private static let showPeer: UInt32 = 4
        private static let peerAttribute: UInt16 = 2
        private static let noCookie: UInt32 = 0xFFFF_FFFF
        private let descriptor: Int32

        init?() {
            descriptor = socket(
                AF_NETLINK, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), Self.netlinkSockDiag)
            guard descriptor >= 0 else { return nil }
        }

        deinit { close(descriptor) }

        func peer(of inode: UInt32) -> UInt32? {
            // struct nlmsghdr, then struct unix_diag_req for one socket by its inode.
            var request: [UInt8] = []
            append(UInt32(16 + 24), to: &request)
            append(Self.sockDiagByFamily, to: &request)
            append(Self.requestFlag, to: &request)
            append(UInt32(inode), to: &request)  // sequence
            append(UInt32(0), to: &request)  // port
            request += [UInt8(AF_UNIX), 0, 0, 0]
            append(UInt32.max, to: &request)  // every state
            append(inode, to: &request)
            append(Self.showPeer, to: &request)
            append(Self.noCookie, to: &request)
            append(Self.noCookie, to: &request)
            let sent = unsafe request.withUnsafeBytes { unsafe send(descriptor, $0.baseAddress, $0.count, 0) }
            guard sent == request.count else { return nil }
            var answer = [UInt8](repeating: 0, count: 8192)
            let received = unsafe answer.withUnsafeMutableBytes { unsafe recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard received >= 16 + 16 else { return nil }
            let reply = Array(answer[0..<received])
            let length = Int(read(UInt32.self, reply, at: 0))
            guard read(UInt16.self, reply, at: 4) != Self.errorMessage, length <= reply.count,
                read(UInt32.self, reply, at: 16 + 4) == inode
            else { return nil }
            // struct unix_diag_msg (16 bytes), then attributes, each 4-aligned.
            var offset = 16 + 16
            while offset + 4 <= length {
                let size = Int(read(UInt16.self, reply, at: offset))
                guard size >= 4, offset + size <= length else { return nil }
                if read(UInt16.self, reply, at: offset + 2) == Self.peerAttribute, size >= 8 {
                    let peer = read(UInt32.self, reply, at: offset + 4)
                    return peer == 0 ? nil : peer
                }
                offset += (size + 3) & ~3
            }
            return nil
        }

        private func append<Value: FixedWidthInteger>(_ value: Value, to bytes: inout [UInt8]) {
            withUnsafeBytes(of: value) { bytes += $0 }
        }

        private func read<Value: FixedWidthInteger>(_: Value.Type, _ bytes: [UInt8], at offset: Int) -> Value {
            var value = Value.zero
            for index in (0..<MemoryLayout<Value>.size).reversed() {
                value = value << 8 | Value(bytes[offset + index])
            }
            return value
        }
    }
}
