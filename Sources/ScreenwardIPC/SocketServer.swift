import Foundation
import NIOCore
import NIOPosix

/// The agent's listening socket. Each line a client sends goes to the handler; the
/// socket file is made owner-only and removed on `close`.
public final class SocketServer: Sendable {
    public let path: String
    private let listener: any Channel

    /// Binds `path`, replacing a stale socket file (the caller holds the agent lock,
    /// so no other agent can be listening there).
    public init(path: String, handler: any ServiceRequestHandler) throws {
        guard path.utf8.count <= AgentAddress.maximumSocketPathLength else {
            throw ServiceError(.invalidArgument, "the socket path is too long for a Unix socket (\(path.utf8.count) bytes): \(path)")
        }
        self.path = path
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 64)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineDecoder()))
                    try channel.pipeline.syncOperations.addHandler(ServerFrameHandler(channel: channel, handler: handler))
                }
            }
        do {
            listener = try bootstrap.bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true).wait()
        } catch {
            throw ServiceError(.internalFailure, "cannot listen on \(path): \(error)")
        }
        try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
    }

    public func close() {
        _ = try? listener.close().wait()
        try? FileManager.default.removeItem(atPath: path)
    }
}

private final class ServerFrameHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    let handler: any ServiceRequestHandler
    let peer: ServicePeer

    init(channel: any Channel, handler: any ServiceRequestHandler) {
        self.handler = handler
        peer = ServicePeer(send: { [weak channel] line in channel?.sendLine(line) }, isConnected: { [weak channel] in channel?.isActive ?? false })
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = Data(unwrapInboundIn(data).readableBytesView)
        // A line that is not a request cannot be answered (it has no id): the peer
        // does not speak the protocol, so it is disconnected.
        guard let head = try? FrameHead.decode(from: frame), head.id != nil, head.method != nil else {
            context.close(promise: nil)
            return
        }
        handler.received(frame: frame, from: peer)
    }

    func channelInactive(context: ChannelHandlerContext) {
        handler.disconnected(peer)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A line over the limit, or a reset: this client is done; others go on.
        context.close(promise: nil)
    }
}
