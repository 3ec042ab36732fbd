import Foundation
import ManagedSettings
import ScreenwardIPC

/// The apps of a managed user whose shield extensions are attached to the daemon now,
/// and those whose action delegate the daemon starts when asked (installed ones). The
/// agent asks about these only; any other app's shield takes the default look at once.
public struct AttachedShieldExtensions: Sendable, Hashable, Codable {
    /// Apps with a shield configuration data source.
    public var configuration: Set<String>
    /// Apps with a shield action delegate.
    public var action: Set<String>
    /// Apps with an installed shield action delegate the daemon starts for a press.
    public var startableAction: Set<String>
    /// How many times each data source attached: a count that changes asks the agent to
    /// redraw that app's shields.
    public var configurationAttachments: [String: Int]?

    public init(
        configuration: Set<String> = [], action: Set<String> = [], startableAction: Set<String> = [],
        configurationAttachments: [String: Int]? = nil
    ) {
        self.configuration = configuration
        self.action = action
        self.startableAction = startableAction
        self.configurationAttachments = configurationAttachments
    }

    /// The apps whose data source is new, or attached again, since `before`.
    public func dataSourcesAttached(since before: AttachedShieldExtensions) -> Set<String> {
        configuration.filter { owner in
            !before.configuration.contains(owner)
                || configurationAttachments?[owner] != before.configurationAttachments?[owner]
        }
    }
}

/// A managed session's agent needs an app's shield extension: how to draw a shield
/// (`action` nil) or what a button press does. `id` is the agent's own; the answer
/// comes back under it.
public struct AgentShieldQuestion: Sendable, Hashable, Codable {
    public var id: ShieldRequestID
    public var owner: String
    public var item: ShieldedItem
    public var action: ShieldAction?

    public init(id: ShieldRequestID, owner: String, item: ShieldedItem, action: ShieldAction?) {
        self.id = id
        self.owner = owner
        self.item = item
        self.action = action
    }
}

/// The agent no longer waits for the answer to its question `id`.
public struct AgentShieldCancel: Sendable, Hashable, Codable {
    public var id: ShieldRequestID
    public init(id: ShieldRequestID) { self.id = id }
}

/// The shield extensions of a managed user's apps attach to the daemon (the apps'
/// connections are the daemon's); the session's agent, which draws the shields, reaches
/// them through it. These are reports and pushes: the agent never waits on the daemon.
extension AgentLinkMethods {
    /// Agent → daemon.
    public static let askShieldExtension = PushKind<AgentShieldQuestion>("agent.shield.ask")
    public static let cancelShieldQuestion = PushKind<AgentShieldCancel>("agent.shield.cancel")
    /// Daemon → agent: an extension's answer, under the agent's id.
    public static let shieldAnswer = PushKind<ShieldAnswer>("agent.shield.answer")
    /// Daemon → agent: at attach and whenever it changes.
    public static let shieldExtensions = PushKind<AttachedShieldExtensions>("agent.shield.extensions")
}
