import Dispatch
import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// The client side of the state owner's Unix socket (the agent's, or the system daemon's
/// for a managed account).
///
/// Calls block their thread until the reply comes (the API's store setters and
/// `startMonitoring` are synchronous, as Apple's are); never call from a NIO event
/// loop. The connection is made on first use and again after the agent restarts;
/// pushes are handed out on one serial queue, in order.
public final class SocketTransport: ServiceTransport {
    public let path: String
    private let state = Mutex(State())
    private let connecting = Mutex(())
    private let pushQueue = DispatchQueue(label: "screenward.pushes")

    private struct State {
        var channel: (any Channel)?
        var pending: [UInt64: EventLoopPromise<Data>] = [:]
        var pushReceiver: (@Sendable (Data) -> Void)?
        var pushReceivers: [String: @Sendable (Data) -> Void] = [:]
        var resubscriptions: [@Sendable (UInt64) -> Data?] = []
        var onEnd: (@Sendable () -> Void)?
        var reconnecting = false
        var closed = false
    }

    /// Who answers on the socket, for messages: "the Screenward agent" and how to start it.
    /// Phrases, filling the connection's messages: the reader of one (a command line, an
    /// app) tells it in their language.
    public struct Owner: Sendable {
        public var name: Phrase
        public var howToStart: Phrase

        public static let agent = Owner(
            name: Phrase("the Screenward agent", context: "connection"),
            howToStart: Phrase(
                "start `screenward-agent` in the desktop session (it normally starts at login)", context: "connection"))
        public static let daemon = Owner(
            name: Phrase("the Screenward system daemon", context: "connection"),
            howToStart: Phrase(
                "this account is managed by a guardian and needs it: ask them (`systemctl start screenward-daemon`)",
                context: "connection"))

        public init(name: Phrase, howToStart: Phrase) {
            self.name = name
            self.howToStart = howToStart
        }
    }

    public let owner: Owner
    /// The first line on each new connection (an app's proof to the daemon).
    private let greeting: (@Sendable () throws -> Data)?

    public init(path: String, owner: Owner = .agent, greeting: (@Sendable () throws -> Data)? = nil) {
        // An app's first use of the API: before its first socket (ProgramStart).
        ProgramStart.prepare()
        self.path = path
        self.owner = owner
        self.greeting = greeting
    }

    public func exchange(requestID: UInt64, frame: Data, timeout: Duration) throws -> Data {
        let channel = try connectedChannel()
        let promise = channel.eventLoop.makePromise(of: Data.self)
        state.withLock { $0.pending[requestID] = promise }
        let expiry = channel.eventLoop.scheduleTask(
            in: .milliseconds(
                timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        ) {
            // The seconds as `Duration` writes them ("10.0"), the word "seconds" the message's own.
            let seconds = "\(timeout / Duration.seconds(1))"
            promise.fail(
                ServiceError(
                    .agentUnavailable,
                    Phrase(
                        "{owner} did not answer within {seconds} seconds", context: "connection",
                        ["owner": self.owner.name, "seconds": seconds])))
        }
        defer {
            expiry.cancel()
            _ = state.withLock { $0.pending.removeValue(forKey: requestID) }
        }
        channel.sendLine(frame)
        do {
            return try promise.futureResult.wait()
        } catch let error as ServiceError {
            throw error
        } catch {
            throw ServiceError(
                .agentUnavailable,
                Phrase(
                    "the connection to {owner} failed: {error}", context: "connection",
                    ["owner": owner.name, "error": "\(error)"]))
        }
    }

    /// Sends a line that expects no reply (a report), connecting first if needed; lines
    /// leave in the order they are posted.
    public func post(_ frame: Data) throws {
        try connectedChannel().sendLine(frame)
    }

    /// Called (on a NIO thread) whenever the connection ends, before any reconnection:
    /// a managed session's agent exits then, and its daemon starts another.
    public func onConnectionEnded(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.onEnd = handler }
    }

    public func setPushReceiver(_ receiver: @escaping @Sendable (Data) -> Void) {
        state.withLock { $0.pushReceiver = receiver }
    }

    public func setPushReceiver(forKind kind: String, _ receiver: @escaping @Sendable (Data) -> Void) {
        state.withLock { $0.pushReceivers[kind] = receiver }
    }

    public func resendOnReconnect(_ makeFrame: @escaping @Sendable (UInt64) -> Data?) {
        state.withLock { $0.resubscriptions.append(makeFrame) }
    }

    /// Closes the connection and stops reconnecting.
    public func close() {
        let channel = state.withLock { state -> (any Channel)? in
            state.closed = true
            defer { state.channel = nil }
            return state.channel
        }
        _ = try? channel?.close().wait()
    }

    // MARK: Connection

    private func connectedChannel() throws -> any Channel {
        try connecting.withLock { _ in
            if let channel = state.withLock({ $0.channel }), channel.isActive { return channel }
            let channel = try connect()
            if let greeting { channel.sendLine(try greeting()) }
            state.withLock { $0.channel = channel }
            return channel
        }
    }

    private func connect() throws -> any Channel {
        guard path.utf8.count <= AgentAddress.maximumSocketPathLength else {
            throw ServiceError(
                .agentUnavailable,
                Phrase(
                    "the socket path of {owner} is too long for a Unix socket ({bytes} bytes): {path}",
                    context: "connection", ["owner": owner.name, "bytes": "\(path.utf8.count)", "path": path]))
        }
        guard FileManager.default.fileExists(atPath: path) else {
            throw ServiceError(
                .agentUnavailable,
                Phrase(
                    "{owner} is not running (no socket at {path}): {remedy}", context: "connection",
                    ["owner": owner.name, "path": path, "remedy": owner.howToStart]))
        }
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineDecoder()))
                    try channel.pipeline.syncOperations.addHandler(ClientFrameHandler(transport: self))
                }
            }
        do {
            return try bootstrap.connect(unixDomainSocketPath: path).wait()
        } catch {
            throw ServiceError(
                .agentUnavailable,
                Phrase(
                    "cannot reach {owner} at {path}: {error}", context: "connection",
                    ["owner": owner.name, "path": path, "error": "\(error)"]))
        }
    }

    // MARK: From the connection's event loop

    fileprivate func received(_ frame: Data) {
        guard let head = try? FrameHead.decode(from: frame) else { return }
        if let id = head.id {
            state.withLock { $0.pending.removeValue(forKey: id) }?.succeed(frame)
        } else if let kind = head.push {
            if let receiver = state.withLock({ $0.pushReceivers[kind] ?? $0.pushReceiver }) {
                pushQueue.async { receiver(frame) }
            }
        } else if let refusal = try? Frame.decode(RefusalFrame.self, from: frame) {
            // The agent refused a line it could not tell the id of, and closes the
            // connection: the calls waiting on it fail with its reason, not a bare close.
            let waiting = state.withLock { state in
                defer { state.pending.removeAll() }
                return Array(state.pending.values)
            }
            for promise in waiting { promise.fail(refusal.error) }
        }
    }

    fileprivate func connectionEnded() {
        let (waiting, resubscribe, onEnd) = state.withLock {
            state -> ([EventLoopPromise<Data>], Bool, (@Sendable () -> Void)?) in
            defer { state.pending.removeAll() }
            state.channel = nil
            let resubscribe = !state.resubscriptions.isEmpty && !state.closed && !state.reconnecting
            if resubscribe { state.reconnecting = true }
            return (Array(state.pending.values), resubscribe, state.closed ? nil : state.onEnd)
        }
        onEnd?()
        for promise in waiting {
            promise.fail(
                ServiceError(
                    .agentUnavailable,
                    Phrase(
                        "{owner} closed the connection (it stopped or restarted)", context: "connection",
                        ["owner": owner.name])))
        }
        if resubscribe { reconnect(after: .milliseconds(100)) }
    }

    /// Subscriptions live with a connection: after the agent restarts, connect again
    /// (every second at most) and send them again.
    private func reconnect(after delay: DispatchTimeInterval) {
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [self] in
            if state.withLock({ $0.closed }) { return }
            guard let channel = try? connectedChannel() else {
                reconnect(after: .seconds(1))
                return
            }
            let frames = state.withLock { state -> [@Sendable (UInt64) -> Data?] in
                state.reconnecting = false
                return state.resubscriptions
            }
            for (offset, makeFrame) in frames.enumerated() {
                // Ids far above the callers' own, so their replies match no waiting call.
                if let frame = makeFrame(UInt64.max / 2 + UInt64(offset)) { channel.sendLine(frame) }
            }
        }
    }
}

/// Hands each line to the transport; reports the connection's end.
private final class ClientFrameHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    let transport: SocketTransport

    init(transport: SocketTransport) { self.transport = transport }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        transport.received(Data(unwrapInboundIn(data).readableBytesView))
    }

    func channelInactive(context: ChannelHandlerContext) {
        transport.connectionEnded()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
