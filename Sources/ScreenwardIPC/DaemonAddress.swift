/// Where the system daemon listens: `/run/screenward/daemon.sock`. `$SCREENWARD_DAEMON_SOCKET`
/// names another (tests run private daemons). A client's environment only changes which
/// socket that client talks to: the daemon authorizes every request by the caller's
/// kernel-reported credentials, so pointing it elsewhere gains nobody anything.
public enum DaemonAddress {
    public static let standardPath = "/run/screenward/daemon.sock"

    public static func socketPath(environment env: [String: String]) -> String {
        if let explicit = env["SCREENWARD_DAEMON_SOCKET"], !explicit.isEmpty { return explicit }
        return standardPath
    }
}
