import ScreenwardBasics
import ScreenwardIPC

/// A command-line program's connection to the agent (`screenward`, `screenward-picker`),
/// as a client with a bundle identifier.
public struct AgentConnection {
    public let home = ScreenwardHome.fromEnvironment()
    private let transport: SocketTransport
    private let client: ServiceClient

    public init(bundleIdentifier: String) {
        transport = SocketTransport(path: home.socketPath())
        client = ServiceClient(transport: transport, bundleIdentifier: bundleIdentifier)
    }

    public func close() { transport.close() }

    public func call<Request, Reply>(_ method: ServiceMethod<Request, Reply>, _ request: Request) throws -> Reply {
        do {
            return try client.call(method, request)
        } catch let error as ServiceError where error.code == .agentUnavailable && !AgentLock.isHeld(in: home) {
            // The agent refuses to start on a damaged ledger (or one a newer version
            // wrote): that is the reason to give, and what to do about it.
            try Ledger.verify(at: home.ledgerURL)
            // A socket left behind by an agent that was killed: say what it means.
            // swift-format-ignore
            throw ServiceError(
                .agentUnavailable,
                Phrase("the Screenward agent is not running (home {home}): start `screenward-agent` in the desktop session (it normally starts at login)", context: "connection", ["home": home.url.path]))
        }
    }
}
