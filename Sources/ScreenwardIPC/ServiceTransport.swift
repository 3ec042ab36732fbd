import Foundation
import Synchronization

/// How a client's requests reach the state owner and its pushes come back.
///
/// `SocketTransport` is the real one (the agent's Unix socket); `DirectTransport`
/// calls an owner in the same process (tests with a controllable clock, and the
/// agent's own built-in rules). Both carry the same encoded lines.
public protocol ServiceTransport: Sendable {
    /// Sends a request line and waits for the reply line with the same id.
    func exchange(requestID: UInt64, frame: Data, timeout: Duration) throws -> Data

    /// Hands every push the owner sends on this transport to `receiver` (one at a time, in order).
    func setPushReceiver(_ receiver: @escaping @Sendable (Data) -> Void)

    /// Hands the pushes named `kind` to `receiver` instead (replacing an earlier one for
    /// that kind), so a monitor and shield extensions can share one connection.
    /// Pushes of every kind still go out one at a time, in order.
    func setPushReceiver(forKind kind: String, _ receiver: @escaping @Sendable (Data) -> Void)

    /// A request to send again whenever the transport reconnects (a monitor's
    /// attachment, which the owner forgets with the connection). Its reply is not awaited.
    func resendOnReconnect(_ makeFrame: @escaping @Sendable (_ requestID: UInt64) -> Data?)
}

/// One client of the owner: a transport and the bundle identifier the client declares.
public final class ServiceClient: Sendable {
    public let transport: any ServiceTransport
    private let declaredIdentifier: String?
    private let requestIDs = RequestIDs()

    /// How long a request waits for its reply before the agent counts as unavailable.
    public static let replyTimeout: Duration = .seconds(10)

    public init(transport: any ServiceTransport, bundleIdentifier: String?) {
        self.transport = transport
        declaredIdentifier = bundleIdentifier
    }

    /// The client this process uses unless told otherwise, with the bundle identifier
    /// from `SCREENWARD_BUNDLE_ID` or the main bundle: in an account a guardian manages,
    /// the system daemon's socket, each connection opened with this process's
    /// `AppProof`; otherwise the person's own agent's socket. A program of Screenward's own
    /// names itself with `bundleIdentifier`.
    public static func standard(bundleIdentifier: String? = nil) -> ServiceClient {
        let env = ProcessInfo.processInfo.environment
        let declared =
            bundleIdentifier ?? env["SCREENWARD_BUNDLE_ID"].flatMap { $0.isEmpty ? nil : $0 }
            ?? Bundle.main.bundleIdentifier
        // A guardian's app acting for a managed user talks to the daemon, which checks both.
        let actingFor = env[AppProof.managedUserVariable].flatMap { $0.isEmpty ? nil : $0 }
        if let daemon = actingFor.map({ _ in DaemonAddress.socketPath(environment: env) })
            ?? DaemonAddress.socketManagingThisAccount(environment: env)
        {
            let transport = SocketTransport(path: daemon, owner: .daemon) {
                var proof = try AppProof.ofThisProcess()
                proof.actingFor = actingFor
                return try AppProof.push.frame(proof)
            }
            return ServiceClient(transport: transport, bundleIdentifier: declared)
        }
        return ServiceClient(
            transport: SocketTransport(path: AgentAddress.socketPath(environment: env)), bundleIdentifier: declared)
    }

    /// The declared bundle identifier, checked.
    public func bundleIdentifier() throws -> String {
        guard let declared = declaredIdentifier else {
            // swift-format-ignore
            throw ServiceError(
                .unauthorized,
                Phrase("this program declares no bundle identifier: set SCREENWARD_BUNDLE_ID (for example org.example.worklog) in its environment, or set ScreenwardApp.bundleIdentifier before using the Screen Time API", context: "connection"))
        }
        try BundleIdentifier.validate(declared)
        return declared
    }

    /// How long a request that waits for a guardian may take (their dialog stays up for
    /// five minutes).
    public static let guardianTimeout: Duration = .seconds(330)

    public func call<Request, Reply>(
        _ method: ServiceMethod<Request, Reply>, _ request: Request, timeout: Duration = replyTimeout
    ) throws -> Reply {
        let id = requestIDs.next()
        let frame = try method.requestFrame(id: id, client: try bundleIdentifier(), request)
        return try method.reply(from: transport.exchange(requestID: id, frame: frame, timeout: timeout))
    }

    /// The same request, from async code: the wait happens off the caller's executor.
    public func call<Request, Reply>(
        _ method: ServiceMethod<Request, Reply>, _ request: Request, timeout: Duration = replyTimeout
    ) async throws -> Reply {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { [self] in
                continuation.resume(with: Result { try call(method, request, timeout: timeout) as Reply })
            }
        }
    }

    /// Keeps `method` with `request` subscribed across reconnections (see `ServiceTransport`).
    public func resendOnReconnect<Request, Reply>(_ method: ServiceMethod<Request, Reply>, _ request: Request) throws {
        let client = try bundleIdentifier()
        transport.resendOnReconnect { id in try? method.requestFrame(id: id, client: client, request) }
    }
}

/// Reverse-DNS names such as `org.example.worklog`: letters, digits, '-', '_' and '.'.
public enum BundleIdentifier {
    public static let maximumLength = 155

    public static func validate(_ identifier: String) throws {
        let allowed = identifier.unicodeScalars.allSatisfy {
            $0.isASCII
                && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "." || $0 == "-" || $0 == "_")
        }
        guard !identifier.isEmpty, identifier.count <= maximumLength, allowed, !identifier.hasPrefix("."),
            !identifier.hasSuffix(".")
        else {
            // swift-format-ignore
            throw ServiceError(
                .invalidArgument,
                Phrase("\"{identifier}\" is not a bundle identifier: use reverse-DNS letters, digits, '.', '-' and '_' (for example org.example.worklog)", context: "connection", ["identifier": String(identifier.prefix(80))]))
        }
    }
}

final class RequestIDs: Sendable {
    private let last = Atomic<UInt64>(0)
    func next() -> UInt64 { last.add(1, ordering: .relaxed).newValue }
}
