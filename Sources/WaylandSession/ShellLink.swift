import Foundation
import GLibRuntime
import Glibc

/// The agent's end of its link with Screenward's extension inside GNOME Shell: a Unix socket the
/// agent listens on, which the extension connects to, one JSON object per line each way. Only
/// the Shell itself is heard: a connection whose peer (`SO_PEERCRED`) is not the Shell's process
/// is closed at once, so no other program of the session can say what has the focus or press a
/// shield's button. A socket rather than the session bus, because a managed child's agent runs
/// as an account of its own, which the child's session bus does not admit.
///
/// The extension says `{"focused": [pid, class, sandboxed app id, title, stable id]}`,
/// `{"idle": true|false}`, `{"shown": "WxH"}`, `{"pressed": action}`, `{"failed": why}`; the
/// agent says `{"idle-after": milliseconds}` when the Shell connects, and `{"shield": json}`
/// (the shield to draw, or "" to take it down).
public final class ShellLink {
    public enum Message: Equatable, Sendable {
        case focused(pid: Int32, wmClass: String, appID: String, title: String, id: String)
        case idle(Bool)
        case shown(String)
        case pressed(String)
        case failed(String)
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public let path: String
    private let loop: MainLoop
    private let isShell: (Int32) -> Bool
    private let greeting: [String: Any]
    private var listener: Int32
    private var listening: MainLoop.Registration?
    private var connection: Int32 = -1
    private var reading: MainLoop.Registration?
    private var buffered: [UInt8] = []
    private var onMessage: (Message) -> Void = { _ in }
    private var onConnected: () -> Void = {}
    private var onClosed: () -> Void = {}
    public var trace: ((String) -> Void)?

    /// Listens at `path` (a socket left there by an agent before is replaced), reachable by
    /// `mode`'s users; `isShell` says whether a connecting process is the Shell; `greeting` is
    /// sent to it first.
    public init(
        path: String, mode: mode_t, loop: MainLoop, greeting: [String: Any], isShell: @escaping (Int32) -> Bool
    ) throws {
        self.path = path
        self.loop = loop
        self.isShell = isShell
        self.greeting = greeting
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw Failure(description: "the socket path \(path) is too long")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in bytes.enumerated() { buffer[index] = byte }
        }
        listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw Failure(description: "no socket: \(String(cString: strerror(errno)))") }
        unlink(path)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0, chmod(path, mode) == 0, listen(listener, 4) == 0 else {
            let why = String(cString: strerror(errno))
            close(listener)
            throw Failure(description: "cannot listen at \(path): \(why)")
        }
    }

    deinit { stop() }

    /// Starts taking the Shell's connection; `message` hears what it says, `connected` and
    /// `closed` when it comes and goes.
    public func start(
        connected: @escaping () -> Void, closed: @escaping () -> Void, message: @escaping (Message) -> Void
    ) {
        onConnected = connected
        onClosed = closed
        onMessage = message
        listening = loop.watch(descriptor: listener) { [unowned self] ready in
            if case .readable = ready { accept() }
        }
    }

    /// Whether the Shell is connected.
    public var isConnected: Bool { connection >= 0 }

    /// Sends `object` to the Shell, if it is connected.
    public func send(_ object: [String: Any]) {
        guard connection >= 0, var line = try? JSONSerialization.data(withJSONObject: object) else { return }
        line.append(UInt8(ascii: "\n"))
        // Not a signal that would end the agent, should the Shell be gone: an error.
        let written = line.withUnsafeBytes { Glibc.send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if written != line.count { drop("the Shell's connection failed on writing") }
    }

    /// Stops listening, and closes the Shell's connection (once: it may be asked again).
    public func stop() {
        listening?.cancel()
        listening = nil
        if listener >= 0 {
            close(listener)
            listener = -1
            unlink(path)
        }
        if connection >= 0 {
            reading?.cancel()
            close(connection)
            connection = -1
        }
    }

    private func accept() {
        let accepted = Glibc.accept(listener, nil, nil)
        guard accepted >= 0 else { return }
        _ = fcntl(accepted, F_SETFD, FD_CLOEXEC)
        guard let peer = SocketPeer.pid(of: accepted), isShell(peer) else {
            trace?("shell link: refused a connection from pid \(SocketPeer.pid(of: accepted).map(String.init) ?? "?")")
            close(accepted)
            return
        }
        // A Shell that connects again (its extension turned off and on) replaces its last connection.
        if connection >= 0 { drop(nil) }
        connection = accepted
        buffered = []
        reading = loop.watch(descriptor: accepted) { [unowned self] ready in
            switch ready {
            case .readable: read()
            case .closed: drop("the Shell closed its connection")
            }
        }
        send(greeting)
        onConnected()
    }

    private func read() {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count = chunk.withUnsafeMutableBytes { Glibc.read(connection, $0.baseAddress, $0.count) }
        guard count > 0 else { return drop("the Shell closed its connection") }
        buffered += chunk[0..<count]
        while let end = buffered.firstIndex(of: UInt8(ascii: "\n")) {
            let line = Array(buffered[..<end])
            buffered.removeSubrange(...end)
            if let message = Self.message(from: line) {
                onMessage(message)
            } else {
                trace?("shell link: cannot understand \(String(decoding: line.prefix(200), as: UTF8.self))")
            }
        }
        // A line longer than any the extension writes is not the extension's.
        if buffered.count > 1 << 20 { drop("the Shell sent a line of more than a megabyte") }
    }

    private func drop(_ why: String?) {
        guard connection >= 0 else { return }
        reading?.cancel()
        reading = nil
        close(connection)
        connection = -1
        buffered = []
        if let why {
            trace?("shell link: \(why)")
            onClosed()
        }
    }

    /// What one line says, if it is one of the messages the extension sends.
    static func message(from line: [UInt8]) -> Message? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
            object.count == 1, let (key, value) = object.first
        else { return nil }
        switch key {
        case "focused":
            guard let fields = value as? [Any], fields.count == 5, let pid = (fields[0] as? NSNumber)?.int32Value
            else { return nil }
            let strings = fields.dropFirst().compactMap { $0 as? String }
            guard strings.count == 4 else { return nil }
            return .focused(pid: pid, wmClass: strings[0], appID: strings[1], title: strings[2], id: strings[3])
        case "idle": return (value as? Bool).map(Message.idle)
        case "shown": return (value as? String).map(Message.shown)
        case "pressed": return (value as? String).map(Message.pressed)
        case "failed": return (value as? String).map(Message.failed)
        default: return nil
        }
    }
}
