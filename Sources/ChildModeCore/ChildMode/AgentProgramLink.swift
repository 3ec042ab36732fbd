import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenTimePolicy
import ScreenwardBasics
import ScreenwardIPC

/// What the daemon and a managed session's agent say about the child's programs. The
/// agent, as the agents' system user, may not read the child's processes; the daemon
/// reads them as root and tells the agent what each is (`programs`); a window whose
/// client the agent does not find there is asked about (`clients`), and answered at
/// once. The agent cannot signal the child's processes: a shield's Close goes to the
/// daemon (`closeProgram`), which ends the process only if it is the child's and covered.
extension AgentLinkMethods {
    /// Daemon → agent: every process of the managed user now, after each change.
    public static let programs = PushKind<[ProgramFacts]>("agent.programs")
    /// Agent → daemon: X clients (pids) of the session the agent does not know yet.
    public static let clients = PushKind<[Int32]>("agent.clients")
    /// Agent → daemon: processes of shielded apps that draw on no window of the session's
    /// display (on a nested display server, or none yet): held too, wherever they draw.
    public static let heldElsewhere = PushKind<[Int32]>("agent.held-elsewhere")
    /// Agent → daemon: end this covered process (a shield's Close).
    public static let closeProgram = PushKind<AgentCloseProgram>("agent.close-program")
    /// Agent → daemon: the session's window manager went away (the daemon records it).
    public static let windowManagerGone = PushKind<Empty>("agent.window-manager-gone")
    /// Agent → daemon: a shield's picture was tampered with and put back (the daemon records it).
    public static let shieldTampered = PushKind<AgentShieldTampered>("agent.shield-tampered")
    /// Agent → daemon: a browser's process is shielded as not supported (`UnsupportedBrowsers`).
    public static let unsupportedBrowser = PushKind<AgentUnsupportedBrowser>("agent.unsupported-browser")
}

public struct AgentShieldTampered: Sendable, Hashable, Codable {
    /// The shielded application's public id, and what was done to its shield.
    public var application: String
    public var problem: String
    public init(application: String, problem: String) {
        self.application = application
        self.problem = problem
    }
}

public struct AgentUnsupportedBrowser: Sendable, Hashable, Codable {
    public var pid: Int32
    /// The browser's name and its executable.
    public var browser: String
    public var executable: String
    public init(pid: Int32, browser: String, executable: String) {
        self.pid = pid
        self.browser = browser
        self.executable = executable
    }
}

public struct AgentCloseProgram: Sendable, Hashable, Codable {
    public var pid: Int32
    public init(pid: Int32) { self.pid = pid }
}

/// The store the daemon adds to a managed user's shields for the programs the system did
/// not install (`application.denyAppInstallation`, on for managed users): each such program
/// of theirs that is not allowed by a guardian, by its executable's identity.
public enum NotInstalledPrograms {
    public static let owner = "org.screenward.child-mode"
    public static let store = "not-installed"

    public static func store(for programs: [ProgramFacts], allowed: Set<String>, minter: TokenMinter) -> StoreSettings?
    {
        let executables = Set(programs.filter { !$0.installed && !allowed.contains($0.executable) }.map(\.executable))
        guard !executables.isEmpty else { return nil }
        let tokens = executables.sorted().map { path in
            minter.applicationToken(for: AppIdentity(key: .executable(path), displayName: ExecCommand.fileName(path)))
        }
        return StoreSettings(owner: owner, name: store, shield: ShieldSettings(applications: Set(tokens)))
    }
}
