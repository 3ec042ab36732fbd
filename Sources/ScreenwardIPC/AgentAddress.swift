import Foundation

/// Where the agent keeps its state and listens: one directory per user (mode 0700,
/// so only that user can reach the socket).
///
/// `$SCREENWARD_HOME`, else `$XDG_DATA_HOME/screenward`, else `~/.local/share/screenward`;
/// the socket is `agent.sock` inside it unless `$SCREENWARD_SOCKET` names another.
public enum AgentAddress {
    public static func homeDirectory(environment env: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let explicit = env["SCREENWARD_HOME"], !explicit.isEmpty {
            return URL(fileURLWithPath: explicit, isDirectory: true)
        }
        let dataHome: String
        if let xdg = env["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            dataHome = xdg
        } else {
            dataHome = (env["HOME"] ?? NSHomeDirectory()) + "/.local/share"
        }
        return URL(fileURLWithPath: dataHome, isDirectory: true).appendingPathComponent("screenward", isDirectory: true)
    }

    public static func socketPath(environment env: [String: String] = ProcessInfo.processInfo.environment) -> String {
        socketPath(inHome: homeDirectory(environment: env), environment: env)
    }

    /// The socket of the agent whose home is `home`.
    public static func socketPath(
        inHome home: URL, environment env: [String: String] = ProcessInfo.processInfo.environment
    ) -> String {
        if let explicit = env["SCREENWARD_SOCKET"], !explicit.isEmpty { return explicit }
        return home.appendingPathComponent("agent.sock").path
    }

    /// The longest path a Unix socket address holds (`sun_path` on Linux, with its NUL).
    public static let maximumSocketPathLength = 107
}
