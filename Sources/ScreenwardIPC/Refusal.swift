import Foundation

/// The owner's answer to a line that is not a request (not UTF-8, not JSON, not an
/// object, no id or no method, or over the length limit): what was wrong, with the
/// line's id when one could be read. The owner closes the connection after it, since
/// the peer does not speak the protocol.
///
///   agent → client   {"error":{"code":"malformed-message","message":"…"}}   (then end of file)
public struct RefusalFrame: Codable, Sendable {
    public var id: UInt64?
    public var error: ServiceError

    public init(id: UInt64?, error: ServiceError) {
        self.id = id
        self.error = error
    }

    /// The refusal for `line`, or nil when it is a request the owner can route
    /// (its body and client are the owner's to check).
    /// With `acceptingReports`, a push line (a report that wants no reply) passes too:
    /// the system daemon takes them from the agents it attached, and ignores the rest.
    public static func refusing(_ line: Data, acceptingReports: Bool = false) -> RefusalFrame? {
        // A line must be UTF-8 text: checked even when the JSON decoder would let it pass.
        guard String(validating: line, as: UTF8.self) != nil else {
            return RefusalFrame(id: nil, error: notARequest("the line is not UTF-8 text"))
        }
        if let head = try? FrameHead.decode(from: line) {
            if head.id != nil, head.method != nil { return nil }
            if acceptingReports, head.id == nil, head.method == nil, head.push != nil { return nil }
        }
        let id = (try? Frame.decode(IdentifiedLine.self, from: line))?.id
        return RefusalFrame(id: id, error: notARequest(problem(in: line)))
    }

    /// The refusal of a line longer than `Frame.maximumLength`.
    public static let overlong = RefusalFrame(
        id: nil, error: notARequest("the line is longer than the limit of \(Frame.maximumLength) bytes"))

    /// The refusal as a line to send.
    public var line: Data {
        // Two strings and a number cannot fail to encode, and stay under the limit.
        (try? Frame.encode(self)) ?? Data(#"{"error":{"code":"malformed-message","message":"not a request"}}"#.utf8)
    }

    private struct IdentifiedLine: Decodable {
        var id: UInt64?
    }

    private static func notARequest(_ problem: String) -> ServiceError {
        ServiceError(
            .malformedMessage,
            #"""
            not a request: \#(problem); a request is one JSON object per line, \#
            {"id":1,"client":"org.example.app","method":"…","body":…}
            """#
        )
    }

    /// What keeps a UTF-8 line from being a request, in words.
    private static func problem(in line: Data) -> String {
        guard let json = try? JSONSerialization.jsonObject(with: line, options: [.fragmentsAllowed]) else {
            return "the line is not JSON"
        }
        guard let object = json as? [String: Any] else {
            return "the line is \(kind(of: json)), not an object"
        }
        guard let id = object["id"], !(id is NSNull) else { return #"it has no "id""# }
        guard (try? Frame.decode(IdentifiedLine.self, from: line))?.id != nil else {
            return #""id" is not a whole number from 0 to \#(UInt64.max)"#
        }
        guard let method = object["method"], !(method is NSNull) else { return #"it has no "method""# }
        guard method is String else { return #""method" is not a string"# }
        if let client = object["client"], !(client is NSNull), !(client is String) {
            return #""client" is not a string"#
        }
        if let push = object["push"], !(push is NSNull), !(push is String) { return #""push" is not a string"# }
        do {
            _ = try FrameHead.decode(from: line)
            return "it is not a request"
        } catch {
            return "\(error)"
        }
    }

    private static func kind(of json: Any) -> String {
        switch json {
        case is [Any]: "a JSON array"
        case is String: "a JSON string"
        case is NSNull: "JSON null"
        default: "a single JSON value"
        }
    }
}
