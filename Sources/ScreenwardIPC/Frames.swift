import Foundation

// The wire format: one JSON object per line (UTF-8, '\n'-terminated, at most
// `Frame.maximumLength` bytes), in both directions.
//
//   client → agent   {"id":7,"client":"org.example.worklog","method":"store.write","body":{…}}
//   agent → client   {"id":7,"reply":{…}}   or   {"id":7,"error":{"code":"unauthorized","message":"…"}}
//   agent → client   {"push":"monitor.callback","body":{…}}   (no id: not a reply)
//   agent → client   {"error":{"code":"malformed-message","message":"…"}}   (a line that was
//                    not a request, see `RefusalFrame`; then the agent closes the connection)
//
// A reader decodes a frame's head first (`FrameHead`) and its body once it knows
// the body's type, from the same bytes.

public enum Frame {
    /// Longer lines are refused: a peer cannot make the other side buffer without bound.
    public static let maximumLength = 1 << 20

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    static func encode<Value: Encodable>(_ value: Value) throws -> Data {
        let data = try encoder.encode(value)
        guard data.count < maximumLength else {
            throw ServiceError(
                .invalidArgument,
                Phrase(
                    "a message of {bytes} bytes is over the limit of {maximum}", context: "connection",
                    ["bytes": "\(data.count)", "maximum": "\(maximumLength)"]))
        }
        return data
    }

    static func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            // A decoding error can quote the value it refused, which may be most of a line.
            // It is the decoder's own English, for whoever debugs the peer: a detail, not translated.
            let reason = "\(error)"
            let detail = reason.count > 600 ? String(reason.prefix(600)) + "…" : reason
            throw ServiceError(
                .malformedMessage,
                Phrase(
                    "not a valid {type} message: {detail}", context: "connection",
                    ["type": "\(type)", "detail": detail]))
        }
    }
}

/// What every frame starts with; which fields are present tells its kind.
public struct FrameHead: Decodable, Sendable {
    public var id: UInt64?
    public var client: String?
    public var method: String?
    public var push: String?

    public static func decode(from data: Data) throws -> FrameHead {
        try Frame.decode(FrameHead.self, from: data)
    }
}

public struct RequestFrame<Body: Codable>: Codable {
    public var id: UInt64
    public var client: String
    public var method: String
    public var body: Body
}

public struct ReplyFrame<Body: Codable>: Codable {
    public var id: UInt64
    public var reply: Body?
    public var error: ServiceError?
}

public struct PushFrame<Body: Codable>: Codable {
    public var push: String
    public var body: Body
}

/// A body for requests and replies that carry nothing.
public struct Empty: Codable, Hashable, Sendable {
    public init() {}
}
