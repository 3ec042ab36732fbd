import Foundation

/// A request router built from `ServiceMethod`s: a table from each method's name to a
/// handler that takes the method's own request type and returns its own reply type.
///
/// A switch on method names can route a request under one name and decode it as
/// another; a table built from the declarations cannot. The tables are static values
/// (their handlers capture nothing): `Target` is the object that answers, `Context` what
/// one request carries besides its body (who sent it, deliveries it makes due, …).
public struct ServiceRoutes<Target, Context>: Sendable {
    /// One method and what answers it.
    public struct Route: Sendable {
        public let method: String
        fileprivate let run: @Sendable (Target, inout Context, Data, UInt64) -> Routed
    }

    /// What a routed request came to.
    public struct Routed {
        /// The reply line; nil when the handler replies later (`on(_:later:)`).
        public let line: Data?
        /// The error the handler threw, before it became the reply's `ServiceError`.
        public let failure: (any Error)?
    }

    private let table: [String: Route]
    private let unknown: @Sendable (String) -> ServiceError

    /// - Parameters:
    ///   - routes: one route per method; a method named twice is a programming error.
    ///   - unknown: the error for a method this router does not know.
    public init(_ routes: [Route], unknown: @escaping @Sendable (String) -> ServiceError) {
        var table: [String: Route] = [:]
        for route in routes {
            precondition(table[route.method] == nil, "\(route.method) is routed twice")
            table[route.method] = route
        }
        self.table = table
        self.unknown = unknown
    }

    /// The methods this router answers.
    public var methods: Set<String> { Set(table.keys) }

    public func answers(_ method: String) -> Bool { table[method] != nil }

    /// Answers one request line; nil for a line with no id or method (nothing to answer).
    public func reply(to frame: Data, by target: Target, _ context: inout Context) -> Routed? {
        guard let head = try? FrameHead.decode(from: frame), let id = head.id, let method = head.method else {
            return nil
        }
        guard let route = table[method] else {
            return Routed(line: errorLine(id: id, unknown(String(method.prefix(80)))), failure: nil)
        }
        return route.run(target, &context, frame, id)
    }
}

extension ServiceRoutes.Route {
    /// `method` answered by `handler` with the request's body and client.
    ///
    /// - Parameter errors: how a thrown error becomes the reply's error.
    public static func on<Request, Reply>(
        _ method: ServiceMethod<Request, Reply>,
        errors: @escaping @Sendable (any Error) -> ServiceError,
        _ handler: @escaping @Sendable (Target, inout Context, RequestFrame<Request>) throws -> Reply
    ) -> Self {
        Self(method: method.name) { target, context, frame, id in
            let result = Result<Reply, any Error> { try handler(target, &context, try method.request(from: frame)) }
            var failure: (any Error)?
            if case .failure(let error) = result { failure = error }
            return ServiceRoutes.Routed(line: method.replyFrame(id: id, result.mapError(errors)), failure: failure)
        }
    }

    /// `method` answered later (after a thread's work, a guardian's password): the
    /// handler is given the reply to fill in, typed by the method's reply. A request
    /// that cannot be read is answered at once with `errors(…)`.
    public static func on<Request, Reply>(
        _ method: ServiceMethod<Request, Reply>,
        errors: @escaping @Sendable (any Error) -> ServiceError,
        later handler:
            @escaping @Sendable (Target, inout Context, RequestFrame<Request>, PendingReply<Reply>) throws
            -> Void
    ) -> Self {
        Self(method: method.name) { target, context, frame, id in
            let pending = PendingReply(id: id, method: method)
            do {
                try handler(target, &context, try method.request(from: frame), pending)
                return ServiceRoutes.Routed(line: nil, failure: nil)
            } catch {
                return ServiceRoutes.Routed(line: pending.line(.failure(errors(error))), failure: error)
            }
        }
    }
}

/// A reply a handler owes and gives later, as the line of its method's reply type.
public struct PendingReply<Reply: Codable & Sendable>: Sendable {
    public let id: UInt64
    private let encode: @Sendable (UInt64, Result<Reply, ServiceError>) -> Data

    init<Request>(id: UInt64, method: ServiceMethod<Request, Reply>) {
        self.id = id
        self.encode = { id, result in method.replyFrame(id: id, result) }
    }

    /// The reply line for `result`.
    public func line(_ result: Result<Reply, ServiceError>) -> Data { encode(id, result) }
}

/// A router for pushes (messages with no reply), built from `PushKind`s like
/// `ServiceRoutes` is from methods.
public struct PushRoutes<Target, Context>: Sendable {
    public struct Route: Sendable {
        public let kind: String
        fileprivate let run: @Sendable (Target, inout Context, Data) throws -> Void
    }

    private let table: [String: Route]

    public init(_ routes: [Route]) {
        var table: [String: Route] = [:]
        for route in routes {
            precondition(table[route.kind] == nil, "\(route.kind) is routed twice")
            table[route.kind] = route
        }
        self.table = table
    }

    public var kinds: Set<String> { Set(table.keys) }

    public func answers(_ kind: String) -> Bool { table[kind] != nil }

    /// Hands a push's body to its handler.
    ///
    /// - Throws: `PushRouteError` for a kind this router does not know, the decoding
    ///   error for a body of the wrong shape, or what the handler throws.
    public func deliver(_ frame: Data, kind: String, to target: Target, _ context: inout Context) throws {
        guard let route = table[kind] else { throw PushRouteError.unknownKind(String(kind.prefix(80))) }
        try route.run(target, &context, frame)
    }
}

public enum PushRouteError: Error, Equatable, CustomStringConvertible {
    case unknownKind(String)

    public var description: String {
        switch self {
        case .unknownKind(let kind): "an unknown message \(kind)"
        }
    }
}

extension PushRoutes.Route {
    /// `kind` handed to `handler` with its decoded body.
    public static func on<Body>(
        _ kind: PushKind<Body>, _ handler: @escaping @Sendable (Target, inout Context, Body) throws -> Void
    ) -> Self {
        Self(kind: kind.name) { target, context, frame in try handler(target, &context, try kind.body(from: frame)) }
    }
}
