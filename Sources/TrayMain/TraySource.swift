import Foundation
import ScreenwardCore
import ScreenwardIPC

/// Where the tray's figures come from, and where its actions go.
enum TraySource: CustomStringConvertible {
    /// A person's own rules, kept by their agent.
    case own
    /// A managed user's rules, kept by the system daemon.
    case managed
    /// A guardian: the managed users, from the daemon.
    case guardian

    static func forThisAccount() -> TraySource {
        let environment = ProcessInfo.processInfo.environment
        if DaemonAddress.socketManagingThisAccount(environment: environment) != nil { return .managed }
        let path = DaemonAddress.socketPath(environment: environment)
        if FileManager.default.fileExists(atPath: path),
            let identity = try? TrayConnection(daemon: true).call(ChildMethods.whoAmI, Empty()),
            identity.role == .guardian
        {
            return .guardian
        }
        return .own
    }

    var description: String {
        switch self {
        case .own: "your own rules (your agent)"
        case .managed: "your rules (the system daemon)"
        case .guardian: "the managed users (the system daemon)"
        }
    }

    var connection: TrayConnection { TrayConnection(daemon: self != .own) }
}

/// One request to the agent or the daemon.
struct TrayConnection {
    let daemon: Bool

    func call<Request, Reply>(
        _ method: ServiceMethod<Request, Reply>, _ request: Request, timeout: Duration = ServiceClient.replyTimeout
    ) throws -> Reply {
        let environment = ProcessInfo.processInfo.environment
        let path =
            daemon ? DaemonAddress.socketPath(environment: environment) : ScreenwardHome.fromEnvironment().socketPath()
        let transport = SocketTransport(path: path, owner: daemon ? .daemon : .agent)
        defer { transport.close() }
        return try ServiceClient(transport: transport, bundleIdentifier: RulesApp.bundleIdentifier).call(
            method, request, timeout: timeout)
    }
}
