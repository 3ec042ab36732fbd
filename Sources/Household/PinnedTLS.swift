import Crypto
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import ScreenwardIPC
import Synchronization

/// A household's server is known by its certificate, not by a name: a guardian's join code
/// carries the start of its SHA-256 fingerprint, the joining computer keeps the whole of it,
/// and every connection after checks the certificate the server shows against it
/// (docs/household.md). No certificate authority is involved: a household's server has a
/// self-signed certificate (Debian's own, or one `household create` made).
public struct CertificateFingerprint: Sendable, Codable, Hashable, CustomStringConvertible {
    /// The SHA-256 of the certificate's DER bytes, in lower-case hex.
    public let hex: String

    init(der: [UInt8]) {
        hex = SHA256.hash(data: der).map { String(format: "%02x", $0) }.joined()
    }

    init?(hex: String) {
        guard hex.count == 64, hex.allSatisfy(\.isHexDigit) else { return nil }
        self.hex = hex.lowercased()
    }

    /// Its first 100 bits in the join codes' alphabet: 20 characters.
    var codePart: String {
        var bits = hex.prefix(25).compactMap { $0.hexDigitValue }.flatMap { digit in
            (0..<4).reversed().map { (digit >> $0) & 1 }
        }
        bits = Array(bits.prefix(100))
        return String(
            stride(from: 0, to: bits.count, by: 5).map { start in
                JoinCode.alphabet[bits[start..<start + 5].reduce(0) { $0 * 2 + $1 }]
            })
    }

    public var description: String {
        "SHA-256 "
            + stride(from: 0, to: 16, by: 4).map { offset in
                let start = hex.index(hex.startIndex, offsetBy: offset)
                return String(hex[start..<hex.index(start, offsetBy: 4)])
            }.joined(separator: ":") + "…"
    }
}

/// Opening a TCP connection to a PostgreSQL server and starting TLS on it as PostgreSQL's
/// protocol does (an SSLRequest, then the handshake), accepting only a certificate that
/// `accept` takes. The channel is then handed to PostgresNIO, which speaks the protocol on it.
enum PinnedTLS {
    /// The server is not the household's, or does not speak as it should; said for people.
    struct Refused: PhrasedError {
        var phrase: Phrase
    }

    /// An open channel with TLS on it (its handshake done), and the certificate the server showed.
    static func open(
        host: String, port: Int, timeout: TimeAmount,
        accept: @escaping @Sendable (CertificateFingerprint) -> Bool
    ) async throws -> (channel: any Channel, certificate: CertificateFingerprint) {
        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        let answer = eventLoop.makePromise(of: UInt8.self)
        let handshake = eventLoop.makePromise(of: Void.self)
        // Every promise is completed whatever happens (a second completion is ignored): one
        // left pending is a leak, which NIO's debug builds stop at.
        do {
            return try await open(
                host: host, port: port, timeout: timeout, accept: accept, on: eventLoop, answer: answer,
                handshake: handshake)
        } catch {
            answer.fail(error)
            handshake.fail(error)
            throw error
        }
    }

    private static func open(
        host: String, port: Int, timeout: TimeAmount, accept: @escaping @Sendable (CertificateFingerprint) -> Bool,
        on eventLoop: any EventLoop, answer: EventLoopPromise<UInt8>, handshake: EventLoopPromise<Void>
    ) async throws -> (channel: any Channel, certificate: CertificateFingerprint) {
        let channel = try await ClientBootstrap(group: eventLoop).connectTimeout(timeout).channelInitializer {
            channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(SSLRequestAnswer(answer))
            }
        }.connect(host: host, port: port).get()
        do {
            // PostgreSQL's SSLRequest: a length of 8 and the code 80877103.
            var request = channel.allocator.buffer(capacity: 8)
            request.writeInteger(Int32(8))
            request.writeInteger(Int32(80_877_103))
            try await channel.writeAndFlush(request)
            let deadline = eventLoop.scheduleTask(in: timeout) { answer.fail(ChannelError.connectTimeout(timeout)) }
            let byte = try await answer.futureResult.get()
            deadline.cancel()
            guard byte == UInt8(ascii: "S") else {
                throw Refused(
                    phrase: Phrase(
                        "the server at {host}:{port} does not offer TLS (ssl is off in its settings)",
                        context: "household", ["host": host, "port": String(port)]))
            }
            let shown = Shown()
            var configuration = TLSConfiguration.makeClientConfiguration()
            // The callback below replaces the checks; a mode other than .none is what makes it run.
            configuration.certificateVerification = .noHostnameVerification
            configuration.minimumTLSVersion = .tlsv12
            let context = try NIOSSLContext(configuration: configuration)
            try await eventLoop.submit {
                let tls = try NIOSSLClientHandler(context: context, serverHostname: nil) { certificates, verdict in
                    guard let leaf = certificates.first, let der = try? leaf.toDERBytes() else {
                        return verdict.succeed(.failed)
                    }
                    let fingerprint = CertificateFingerprint(der: der)
                    shown.fingerprint.withLock { $0 = fingerprint }
                    verdict.succeed(accept(fingerprint) ? .certificateVerified : .failed)
                }
                try channel.pipeline.syncOperations.addHandler(tls, position: .first)
                try channel.pipeline.syncOperations.addHandler(HandshakeWatch(handshake))
            }.get()
            let handshakeDeadline = eventLoop.scheduleTask(in: timeout) {
                handshake.fail(ChannelError.connectTimeout(timeout))
            }
            do {
                try await handshake.futureResult.get()
                handshakeDeadline.cancel()
            } catch {
                handshakeDeadline.cancel()
                if let fingerprint = shown.fingerprint.withLock({ $0 }), !accept(fingerprint) {
                    // swift-format-ignore
                    throw Refused(phrase: Phrase("the server at {host}:{port} is not the household's: its certificate ({certificate}) is not the one this computer knows", context: "household", ["host": host, "port": String(port), "certificate": fingerprint.description]))
                }
                throw error
            }
            guard let certificate = shown.fingerprint.withLock({ $0 }) else {
                throw Refused(
                    phrase: Phrase(
                        "the server at {host}:{port} showed no certificate", context: "household",
                        ["host": host, "port": String(port)]))
            }
            try await eventLoop.submit {
                if let watch = try? channel.pipeline.syncOperations.handler(type: HandshakeWatch.self) {
                    channel.pipeline.syncOperations.removeHandler(watch, promise: nil)
                }
            }.get()
            return (channel, certificate)
        } catch {
            try? await channel.close()
            throw error
        }
    }
}

/// The certificate the server showed, as the verification callback saw it.
private final class Shown: Sendable {
    let fingerprint = Mutex<CertificateFingerprint?>(nil)
}

/// Reads the server's one-byte answer to an SSLRequest, then steps aside. Anything more before
/// the handshake is refused: it would be read as if it came over TLS (CVE-2021-23222).
private final class SSLRequestAnswer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    private let answer: EventLoopPromise<UInt8>

    init(_ answer: EventLoopPromise<UInt8>) { self.answer = answer }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = Self.unwrapInboundIn(data)
        guard let byte = buffer.readInteger(as: UInt8.self) else { return }
        if buffer.readableBytes > 0 {
            answer.fail(
                PinnedTLS.Refused(
                    phrase: Phrase("the server sent more than its answer before TLS began", context: "household")))
            context.close(promise: nil)
            return
        }
        answer.succeed(byte)
        context.pipeline.syncOperations.removeHandler(self, promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        answer.fail(ChannelError.eof)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        answer.fail(error)
        context.close(promise: nil)
    }
}

/// Completes when the TLS handshake did, fails with the error that ended it.
private final class HandshakeWatch: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    private let done: EventLoopPromise<Void>

    init(_ done: EventLoopPromise<Void>) { self.done = done }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? TLSUserEvent, case .handshakeCompleted = event { done.succeed(()) }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        done.fail(error)
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        done.fail(ChannelError.eof)
        context.fireChannelInactive()
    }
}
