import Foundation

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

    /// Asks the daemon whether it owns this account's limits (a guardian manages it): the
    /// daemon's socket if so, nil when it says it does not or no daemon answers (then the
    /// person's own agent is the owner). A connection that fails at once (a daemon starting,
    /// or one too busy to accept) is tried again, three times a third of a second apart: a
    /// managed program that took the person's own agent for its owner would report to one
    /// that enforces nothing. A daemon that let the question wait its whole timeout is not
    /// asked again.
    public static func socketManagingThisAccount(environment env: [String: String]) -> String? {
        let path = socketPath(environment: env)
        for attempt in 1...placementAttempts {
            guard FileManager.default.fileExists(atPath: path) else { return nil }
            let transport = SocketTransport(path: path, owner: .daemon)
            defer { transport.close() }
            let client = ServiceClient(transport: transport, bundleIdentifier: placementClient)
            let asked = ContinuousClock.now
            if let placement = try? client.call(placementMethod, Empty()) { return placement.managed ? path : nil }
            guard ContinuousClock.now - asked < .seconds(1) else { return nil }
            if attempt < placementAttempts { Thread.sleep(forTimeInterval: 1.0 / 3) }
        }
        return nil
    }

    private static let placementAttempts = 3

    /// The label of the placement question (the daemon answers it for anyone).
    public static let placementClient = "org.screenward.placement"
    public static let placementMethod = ServiceMethod<Empty, AccountPlacement>("daemon.placement")
}

/// Whether the daemon owns the caller's limits.
public struct AccountPlacement: Sendable, Hashable, Codable {
    public var managed: Bool
    public init(managed: Bool) { self.managed = managed }
}
