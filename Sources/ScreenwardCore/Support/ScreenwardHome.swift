import Foundation

/// The directory that holds the ledger, the device secret and the agent's lock:
/// `$SCREENWARD_HOME`, else `$XDG_DATA_HOME/screenward`, else `~/.local/share/screenward`.
public struct ScreenwardHome: Sendable, Hashable {
    public let url: URL

    public init(url: URL) { self.url = url }

    public static func fromEnvironment(_ env: [String: String] = ProcessInfo.processInfo.environment) -> ScreenwardHome {
        if let explicit = env["SCREENWARD_HOME"], !explicit.isEmpty {
            return ScreenwardHome(url: URL(fileURLWithPath: explicit, isDirectory: true))
        }
        let dataHome: String
        if let xdg = env["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            dataHome = xdg
        } else {
            let home = env["HOME"] ?? NSHomeDirectory()
            dataHome = home + "/.local/share"
        }
        return ScreenwardHome(url: URL(fileURLWithPath: dataHome, isDirectory: true).appendingPathComponent("screenward", isDirectory: true))
    }

    public var ledgerURL: URL { url.appendingPathComponent("ledger.sqlite") }
    public var deviceSecretURL: URL { url.appendingPathComponent("device-secret") }
    public var agentLockURL: URL { url.appendingPathComponent("agent.lock") }

    /// Creates the directory (mode 0700: usage is personal) if it is missing.
    public func create() throws {
        try FileManager.default.createDirectory(
            at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }
}
