import Foundation

/// A request the state owner answers, with the types of its body and reply.
///
/// The API modules declare their methods (`store.write`, `activity.start`, …) next to
/// the types they carry; the agent routes on the same declarations, so the two sides
/// cannot disagree about a body's shape.
public struct ServiceMethod<Request: Codable & Sendable, Reply: Codable & Sendable>: Sendable {
    public let name: String
    public init(_ name: String) { self.name = name }

    /// The request as a line to send.
    public func requestFrame(id: UInt64, client: String, _ request: Request) throws -> Data {
        try Frame.encode(RequestFrame(id: id, client: client, method: name, body: request))
    }

    /// The reply to a request, or the error it carries.
    public func reply(from frame: Data) throws -> Reply {
        let decoded = try Frame.decode(ReplyFrame<Reply>.self, from: frame)
        if let error = decoded.error { throw error }
        guard let reply = decoded.reply else {
            throw ServiceError(
                .malformedMessage,
                Phrase(
                    "the reply to {method} carries neither a result nor an error", context: "connection",
                    ["method": name]))
        }
        return reply
    }

    /// The owner's side: the request's body.
    public func request(from frame: Data) throws -> RequestFrame<Request> {
        try Frame.decode(RequestFrame<Request>.self, from: frame)
    }

    /// The owner's side: a reply line for request `id`.
    public func replyFrame(id: UInt64, _ result: Result<Reply, ServiceError>) -> Data {
        ReplyFrame<Reply>.encodeLine(id: id, result)
    }
}

extension ReplyFrame {
    /// A reply line; a reply that cannot be encoded becomes an error reply (which can).
    static func encodeLine(id: UInt64, _ result: Result<Body, ServiceError>) -> Data {
        let frame: ReplyFrame<Body>
        switch result {
        case .success(let body): frame = ReplyFrame(id: id, reply: body, error: nil)
        case .failure(let error): frame = ReplyFrame(id: id, reply: nil, error: error)
        }
        if let data = try? Frame.encode(frame) { return data }
        return errorLine(
            id: id, ServiceError(.internalFailure, Phrase("the reply could not be encoded", context: "connection")))
    }
}

/// A reply line carrying only an error (for requests whose method is unknown or unreadable).
public func errorLine(id: UInt64, _ error: ServiceError) -> Data {
    // Encoding an error frame cannot fail: it is two strings and a number.
    (try? Frame.encode(ReplyFrame<Empty>(id: id, reply: nil, error: error))) ?? Data()
}

/// A message the owner sends unasked (a monitor callback), with its body's type.
public struct PushKind<Body: Codable & Sendable>: Sendable {
    public let name: String
    public init(_ name: String) { self.name = name }

    public func frame(_ body: Body) throws -> Data {
        try Frame.encode(PushFrame(push: name, body: body))
    }

    public func body(from frame: Data) throws -> Body {
        try Frame.decode(PushFrame<Body>.self, from: frame).body
    }
}
