import Foundation

/// Browsers' native messaging, as `screenward-web-host` speaks it on its standard input and
/// output: each message is UTF-8 JSON after its length, four bytes in the machine's order
/// (little-endian on every machine Debian's browsers run on here).
///
/// The browser may send up to 64 MiB and accepts at most 1 MiB; Screenward's messages are
/// small, so anything longer than `maximumLength` is skipped unread and named: the
/// stream stays in step and nothing else changes.
public enum NativeMessaging {
    /// The longest message either way; longer ones are dropped.
    public static let maximumLength = 1 << 20

    /// One message framed for the browser; nil when it is longer than it accepts.
    public static func frame(_ message: Data) -> Data? {
        guard message.count <= maximumLength else { return nil }
        var framed = Data(capacity: message.count + 4)
        let length = UInt32(message.count)
        framed.append(contentsOf: [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: length >> $0) })
        framed.append(message)
        return framed
    }

    /// What the decoder found in the bytes it was given.
    public enum Event: Equatable, Sendable {
        case message(Data)
        /// A message skipped, and why (a log line's worth).
        case dropped(String)
    }

    /// Splits the byte stream from the browser into messages.
    public struct Decoder: Sendable {
        private var buffer: [UInt8] = []
        /// Bytes of an over-long message still to skip.
        private var skipping = 0
        public init() {}

        /// Whether a message was begun and not finished (at the end of the stream: a
        /// truncated last message).
        public var isInsideAMessage: Bool { !buffer.isEmpty || skipping > 0 }

        public mutating func feed(_ bytes: some Collection<UInt8>) -> [Event] {
            var events: [Event] = []
            var input = bytes[...]
            while !input.isEmpty {
                if skipping > 0 {
                    let skipped = min(skipping, input.count)
                    input = input.dropFirst(skipped)
                    skipping -= skipped
                    continue
                }
                if buffer.count < 4 {
                    let taken = input.prefix(4 - buffer.count)
                    buffer.append(contentsOf: taken)
                    input = input.dropFirst(taken.count)
                    if buffer.count < 4 { break }
                }
                let length = Int(
                    UInt32(buffer[0]) | UInt32(buffer[1]) << 8 | UInt32(buffer[2]) << 16 | UInt32(buffer[3]) << 24)
                if length == 0 {
                    events.append(.dropped("an empty message"))
                    buffer.removeAll()
                    continue
                }
                if length > NativeMessaging.maximumLength {
                    events.append(.dropped("a message of \(length) bytes (more than \(NativeMessaging.maximumLength))"))
                    buffer.removeAll()
                    skipping = length
                    continue
                }
                let wanted = 4 + length - buffer.count
                let taken = input.prefix(wanted)
                buffer.append(contentsOf: taken)
                input = input.dropFirst(taken.count)
                if buffer.count == 4 + length {
                    events.append(.message(Data(buffer[4...])))
                    buffer.removeAll(keepingCapacity: true)
                }
            }
            return events
        }
    }
}
