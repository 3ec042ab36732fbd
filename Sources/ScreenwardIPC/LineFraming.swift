import Foundation
import NIOCore

/// Splits the byte stream into lines (without their '\n'); refuses a line longer
/// than `Frame.maximumLength`, which closes the connection.
struct LineDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    struct LineTooLong: Error, CustomStringConvertible {
        var description: String { "a message is longer than \(Frame.maximumLength) bytes" }
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
            if buffer.readableBytes > Frame.maximumLength { throw LineTooLong() }
            return .needMoreData
        }
        guard newline - buffer.readerIndex <= Frame.maximumLength else { throw LineTooLong() }
        guard let line = buffer.readSlice(length: newline - buffer.readerIndex) else { return .needMoreData }
        buffer.moveReaderIndex(forwardBy: 1)
        context.fireChannelRead(wrapInboundOut(line))
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws
        -> DecodingState
    {
        // A last line without its '\n' is incomplete: drop it.
        while try decode(context: context, buffer: &buffer) == .continue {}
        return .needMoreData
    }
}

extension Channel {
    /// Writes one frame as a line.
    func sendLine(_ frame: Data) {
        var buffer = allocator.buffer(capacity: frame.count + 1)
        buffer.writeBytes(frame)
        buffer.writeInteger(UInt8(ascii: "\n"))
        writeAndFlush(buffer, promise: nil)
    }
}
