import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// A client of the agent's socket that writes raw bytes, not requests, and records what
/// comes back: the lines, and how the connection ended (the agent's end of file, or an
/// error such as a reset), so a test can tell a close from a timeout.
public final class RawLineConnection {
    public enum End: Equatable, Sendable {
        /// The agent shut the connection; every line it sent was read.
        case endOfFile
        /// The connection failed (a reset, say).
        case failed(String)
    }

    private let channel: any Channel
    private let recorder = LineRecorder()
    private let whileWaiting: () -> Void

    /// - Parameter whileWaiting: run again and again while this waits for a line (the
    ///   owner's loop, when the test's thread is that loop).
    public init(path: String, whileWaiting: @escaping () -> Void = {}) throws {
        self.whileWaiting = whileWaiting
        let recorder = recorder
        // Half-closure: the agent's end of file is recorded while this side may still be
        // writing a long line (which the agent reads and drops).
        channel = try ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.allowRemoteHalfClosure, value: true)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(recorder) }
            }
            .connect(unixDomainSocketPath: path).wait()
    }

    deinit { channel.close(promise: nil) }

    /// Writes `bytes` as they are (a line needs its own "\n").
    public func send(_ bytes: some Sequence<UInt8>) throws {
        try channel.writeAndFlush(ByteBuffer(bytes: Array(bytes))).wait()
    }

    public func send(line: String) throws {
        try send(Array((line + "\n").utf8))
    }

    /// The next line the agent sent; nil if none came within `timeout` seconds.
    public func nextLine(timeout: TimeInterval = 10) -> Data? {
        recorder.wait(timeout: timeout, whileWaiting: whileWaiting) {
            $0.lines.isEmpty ? nil : $0.lines.removeFirst()
        }
    }

    /// How the connection ended; nil if it is still open after `timeout` seconds.
    public func end(within timeout: TimeInterval) -> End? {
        recorder.wait(timeout: timeout, whileWaiting: whileWaiting) { $0.end }
    }
}

/// Collects lines and the connection's end on the channel's event loop, for a test's
/// thread (which looks every couple of milliseconds: tests wait for seconds at most).
private final class LineRecorder: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer

    struct State {
        var partial: [UInt8] = []
        var lines: [Data] = []
        var end: RawLineConnection.End?
        var failure: String?
    }

    private let state = Mutex(State())

    func wait<Value>(timeout: TimeInterval, whileWaiting: () -> Void, _ take: (inout State) -> Value?) -> Value? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            whileWaiting()
            if let value = state.withLock({ take(&$0) }) { return value }
            guard Date() < deadline else { return nil }
            Thread.sleep(forTimeInterval: 0.002)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = Array(unwrapInboundIn(data).readableBytesView)
        state.withLock { state in
            state.partial += bytes
            while let newline = state.partial.firstIndex(of: UInt8(ascii: "\n")) {
                state.lines.append(Data(state.partial[..<newline]))
                state.partial.removeSubrange(...newline)
            }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        state.withLock { $0.failure = "\(error)" }
        context.close(promise: nil)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .inputClosed = event as? ChannelEvent {
            state.withLock { $0.end = $0.end ?? .endOfFile }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        state.withLock { $0.end = $0.end ?? $0.failure.map(RawLineConnection.End.failed) ?? .endOfFile }
        context.fireChannelInactive()
    }
}
