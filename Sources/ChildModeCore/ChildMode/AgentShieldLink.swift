import Foundation
import ManagedSettings
import ScreenTimeOwner
import ScreenwardIPC

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
