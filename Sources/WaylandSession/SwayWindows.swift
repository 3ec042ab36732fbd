import Foundation
import Glibc

/// What sway says of its focused window over its IPC socket (`GET_TREE`, i3's protocol): the
/// process that made it, which sway knows from the client's socket (its peer credentials, or
/// the X client for an Xwayland window). No Wayland protocol tells one client which process
/// another toplevel belongs to; a compositor's own IPC is the only source of it.
public final class SwayWindows {
    /// The focused window as sway's tree shows it.
    public struct Focused: Sendable, Equatable {
        public var pid: Int32?
        public var appID: String?
        /// An Xwayland window's WM_CLASS, which sway reports instead of an app_id.
        public var wmClass: String?
        public var wmInstance: String?
        public var title: String?
    }

    public enum Problem: Error, CustomStringConvertible {
        case noSocket
        case failed(String)

        public var description: String {
            switch self {
            case .noSocket: "no sway IPC socket ($SWAYSOCK, or sway-ipc.UID.PID.sock in $XDG_RUNTIME_DIR)"
            case .failed(let why): "sway's IPC failed: \(why)"
            }
        }
    }

    public let socketPath: String
    /// The sway whose IPC this must be (the compositor of the agent's Wayland connection): a
    /// connection whose peer is another process is refused.
    public var expectedPeer: Int32?
    private var descriptor: Int32 = -1

    public init(socketPath: String) {
        self.socketPath = socketPath
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// Sway's socket for this user: `$SWAYSOCK`, else the one in `runtimeDirectory` whose sway
    /// still runs.
    public static func locate(environment: [String: String]) throws -> SwayWindows {
        if let path = environment["SWAYSOCK"], !path.isEmpty { return SwayWindows(socketPath: path) }
        guard let runtime = environment["XDG_RUNTIME_DIR"],
            let names = try? FileManager.default.contentsOfDirectory(atPath: runtime)
        else { throw Problem.noSocket }
        let prefix = "sway-ipc.\(getuid())."
        for name in names.sorted() where name.hasPrefix(prefix) && name.hasSuffix(".sock") {
            let pid = name.dropFirst(prefix.count).dropLast(".sock".count)
            if let pid = Int32(pid), kill(pid, 0) == 0 || errno == EPERM {
                return SwayWindows(socketPath: runtime + "/" + name)
            }
        }
        throw Problem.noSocket
    }

    /// The focused window now; nil when no window has the focus (an empty workspace).
    public func focused() throws -> Focused? {
        let tree = try ask(type: 4)  // GET_TREE
        guard let root = try JSONSerialization.jsonObject(with: tree) as? [String: Any] else {
            throw Problem.failed("its tree is not a JSON object")
        }
        return Self.focused(in: root)
    }

    static func focused(in node: [String: Any]) -> Focused? {
        if node["focused"] as? Bool == true,
            node["pid"] != nil || node["app_id"] != nil
                || node["window_properties"] != nil
        {
            let properties = node["window_properties"] as? [String: Any]
            return Focused(
                pid: (node["pid"] as? NSNumber).map { Int32(truncatingIfNeeded: $0.intValue) },
                appID: node["app_id"] as? String, wmClass: properties?["class"] as? String,
                wmInstance: properties?["instance"] as? String, title: node["name"] as? String)
        }
        for key in ["nodes", "floating_nodes"] {
            for child in node[key] as? [[String: Any]] ?? [] {
                if let found = focused(in: child) { return found }
            }
        }
        return nil
    }

    /// Runs a sway command (`RUN_COMMAND`: `[app_id=foot] focus`), as `swaymsg` does; throws
    /// when sway says it failed.
    public func run(_ command: String) throws {
        let reply = try ask(type: 0, payload: Data(command.utf8))
        let results = try JSONSerialization.jsonObject(with: reply) as? [[String: Any]] ?? []
        for result in results where result["success"] as? Bool != true {
            throw Problem.failed("\(command): \(result["error"] as? String ?? "failed")")
        }
    }

    // MARK: The socket

    private func ask(type: UInt32, payload: Data = Data()) throws -> Data {
        do {
            return try exchange(type: type, payload: payload)
        } catch {
            // A broken connection (sway restarted its socket): once more on a new one.
            disconnect()
            return try exchange(type: type, payload: payload)
        }
    }

    private func exchange(type: UInt32, payload: Data) throws -> Data {
        if descriptor < 0 { try connect() }
        var message = Data("i3-ipc".utf8)
        withUnsafeBytes(of: UInt32(payload.count).littleEndian) { message.append(contentsOf: $0) }
        withUnsafeBytes(of: type.littleEndian) { message.append(contentsOf: $0) }
        message.append(payload)
        try write(message)
        let header = try read(count: 14)
        guard header.prefix(6) == Data("i3-ipc".utf8) else { throw Problem.failed("its reply has no i3-ipc header") }
        let length = header.subdata(in: 6..<10).withUnsafeBytes {
            UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self))
        }
        guard length <= 64 << 20 else { throw Problem.failed("its reply claims \(length) bytes") }
        return try read(count: Int(length))
    }

    private func connect() throws {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Problem.failed("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(socketPath.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(fd)
            throw Problem.failed("its socket path is too long")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        // Sway answers at once; a hung compositor must not hang the agent.
        var timeout = timeval(tv_sec: 0, tv_usec: 500_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let why = String(cString: strerror(errno))
            close(fd)
            throw Problem.failed("cannot connect to \(socketPath): \(why)")
        }
        if let expectedPeer, let peer = SocketPeer.pid(of: fd), peer != expectedPeer {
            close(fd)
            throw Problem.failed(
                "\(socketPath) is process \(peer)'s, not the compositor's (\(expectedPeer)): not sway's IPC")
        }
        descriptor = fd
    }

    private func disconnect() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
    }

    private func write(_ data: Data) throws {
        var sent = 0
        while sent < data.count {
            let count = data.withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress! + sent, data.count - sent, Int32(MSG_NOSIGNAL))
            }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw Problem.failed("send: \(String(cString: strerror(errno)))") }
            sent += count
        }
    }

    private func read(count: Int) throws -> Data {
        var data = Data(count: count)
        var received = 0
        while received < count {
            let got = data.withUnsafeMutableBytes {
                Glibc.recv(descriptor, $0.baseAddress! + received, count - received, 0)
            }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else {
                throw Problem.failed(
                    got == 0 ? "it closed the connection" : "recv: \(String(cString: strerror(errno)))")
            }
            received += got
        }
        return data
    }
}
