import Foundation
import ScreenwardIPC

/// The directory that holds the ledger, the device secret and the agent's lock:
/// `$SCREENWARD_HOME`, else `$XDG_DATA_HOME/screenward`, else `~/.local/share/screenward`.
public struct ScreenwardHome: Sendable, Hashable {
    public let url: URL

    public init(url: URL) { self.url = url }

    public static func fromEnvironment(_ env: [String: String] = ProcessInfo.processInfo.environment) -> ScreenwardHome
    {
        ScreenwardHome(url: AgentAddress.homeDirectory(environment: env))
    }

    public var ledgerURL: URL { url.appendingPathComponent("ledger.sqlite") }
    public var deviceSecretURL: URL { url.appendingPathComponent("device-secret") }
    public var agentLockURL: URL { url.appendingPathComponent("agent.lock") }
    /// Where the agent listens for API clients (see `AgentAddress.socketPath`).
    public func socketPath(environment env: [String: String] = ProcessInfo.processInfo.environment) -> String {
        AgentAddress.socketPath(inHome: url, environment: env)
    }

    /// Creates the directory if it is missing, and makes it private (mode 0700: usage is
    /// personal, and the ledger and the socket inside are reached through it), also when
    /// something else created it open to others.
    public func create() throws {
        try FileManager.default.createDirectory(
            at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: url.path)
    }
}
