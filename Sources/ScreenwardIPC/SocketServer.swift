import Foundation
import NIOCore
import NIOPosix

/// A state owner's listening socket (the agent's, the system daemon's). Each request
/// line a client sends goes to the handler; a line that is not a request gets a
/// `RefusalFrame` and ends that connection. The socket file gets the mode `access`
/// says (owner-only unless told otherwise) and is removed on `close`. With an
/// `identify` reader, every peer carries its kernel-reported credentials; a connection
/// whose credentials cannot be read is closed before anything it sent is read. With a
/// `limit` (which needs `identify`), a user's connection over it is told so in a
/// `RefusalFrame` and closed before anything it sent is read; the handler hears of it.
public final class SocketServer: Sendable {
    public let path: String
    private let listener: any Channel

    /// Binds `path`, replacing a stale socket file (the caller holds the agent lock,
    /// so no other agent can be listening there).
    /// With `acceptingReports`, clients may also send push lines (reports; see `RefusalFrame`).
    public init(
        path: String, access: SocketAccess = .ownerOnly, identify: PeerIdentifier? = nil,
        acceptingReports: Bool = false,
        limit: ConnectionLimit? = nil, handler: any ServiceRequestHandler
    ) throws {
        guard path.utf8.count <= AgentAddress.maximumSocketPathLength else {
            throw ServiceError(
                .invalidArgument,
                Phrase(
                    "the socket path is too long for a Unix socket ({bytes} bytes): {path}", context: "connection",
                    ["bytes": "\(path.utf8.count)", "path": path]))
        }
        self.path = path
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 64)
            .childChannelInitializer { channel in
                guard let identify else {
                    return channel.eventLoop.makeCompletedFuture {
                        try Self.addHandlers(
                            to: channel, credentials: nil, acceptingReports: acceptingReports, handler: handler)
                    }
                }
                // Reading the option on the channel's own loop completes at once.
                return identify(channel).flatMapThrowing { credentials in
                    if let limit {
                        guard limit.admit(uid: credentials.uid) else {
                            Self.turnAway(channel, credentials: credentials, handler: handler)
                            return
                        }
                        channel.closeFuture.whenComplete { _ in limit.release(uid: credentials.uid) }
                    }
                    try Self.addHandlers(
                        to: channel, credentials: credentials, acceptingReports: acceptingReports, handler: handler)
                }
            }
        do {
            listener = try bootstrap.bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true).wait()
        } catch {
            throw ServiceError(
                .internalFailure,
                Phrase("cannot listen on {path}: {error}", context: "connection", ["path": path, "error": "\(error)"]))
        }
        do {
            try FileManager.default.setAttributes([.posixPermissions: access.mode], ofItemAtPath: path)
        } catch {
            // Never listen on a socket with other permissions than intended.
            _ = try? listener.close().wait()
            try? FileManager.default.removeItem(atPath: path)
            throw ServiceError(
                .internalFailure,
                Phrase(
                    "cannot set the mode of the socket {path} (chmod {mode}): {error}", context: "connection",
                    ["path": path, "mode": String(access.mode, radix: 8), "error": "\(error)"]))
        }
    }

    private static func addHandlers(
        to channel: any Channel, credentials: PeerCredentials?, acceptingReports: Bool,
        handler: any ServiceRequestHandler
    ) throws {
        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineDecoder()))
        try channel.pipeline.syncOperations.addHandler(
            ServerFrameHandler(
                channel: channel, credentials: credentials, acceptingReports: acceptingReports, handler: handler))
    }

    /// A connection over its user's limit: one line saying so, then closed. Nothing it
    /// sends is read (no decoder is added), so it costs no more than its descriptor, briefly.
    private static func turnAway(
        _ channel: any Channel, credentials: PeerCredentials, handler: any ServiceRequestHandler
    ) {
        handler.refused(
            ServicePeer(credentials: credentials, send: { _ in }, isConnected: { false }),
            because: ConnectionLimit.refusal)
        let refusal = RefusalFrame(id: nil, error: ServiceError(.limitExceeded, ConnectionLimit.refusalPhrase))
        var buffer = channel.allocator.buffer(capacity: 128)
        buffer.writeBytes(refusal.line)
        buffer.writeInteger(UInt8(ascii: "\n"))
        channel.writeAndFlush(buffer).whenComplete { _ in channel.close(promise: nil) }
    }

    public func close() {
        _ = try? listener.close().wait()
        try? FileManager.default.removeItem(atPath: path)
    }
}

private final class ServerFrameHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    let handler: any ServiceRequestHandler
    let peer: ServicePeer
    let acceptingReports: Bool
    /// Set once a line was refused: nothing more from this peer is read.
    private var refused = false

    /// How long a refused peer has to read the refusal and close its end.
    static let lingering: TimeAmount = .seconds(2)

    init(
        channel: any Channel, credentials: PeerCredentials?, acceptingReports: Bool, handler: any ServiceRequestHandler
    ) {
        self.handler = handler
        self.acceptingReports = acceptingReports
        peer = ServicePeer(
            credentials: credentials, send: { [weak channel] line in channel?.sendLine(line) },
            isConnected: { [weak channel] in channel?.isActive ?? false })
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        let frame = Data(unwrapInboundIn(data).readableBytesView)
        if let refusal = RefusalFrame.refusing(frame, acceptingReports: acceptingReports) {
            refuse(context: context, refusal)
            return
        }
        handler.received(frame: frame, from: peer)
    }

    func channelInactive(context: ChannelHandlerContext) {
        handler.disconnected(peer)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // After a refusal the line decoder reports each further read: they are dropped.
        guard !refused else { return }
        if error is LineDecoder.LineTooLong {
            refuse(context: context, .overlong)
        } else {
            // A reset: this client is done; others go on.
            context.close(promise: nil)
        }
    }

    /// A peer that does not speak the protocol is told why, then disconnected: the
    /// refusal, then end of file (our side shut for writing). What it still sends is
    /// read and dropped until it closes its end, or `lingering` passes; closing with
    /// unread data would reset the connection, and the peer could lose the refusal.
    private func refuse(context: ChannelHandlerContext, _ refusal: RefusalFrame) {
        refused = true
        handler.refused(peer, because: refusal.error.message)
        let channel = context.channel
        var buffer = context.channel.allocator.buffer(capacity: 256)
        buffer.writeBytes(refusal.line)
        buffer.writeInteger(UInt8(ascii: "\n"))
        context.writeAndFlush(wrapOutboundOut(buffer)).whenComplete { _ in
            channel.close(mode: .output, promise: nil)
        }
        channel.eventLoop.scheduleTask(in: Self.lingering) {
            channel.close(promise: nil)
        }
    }
}
