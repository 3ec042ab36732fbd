@_spi(Screenward) import FamilyControls
import Foundation
import ScreenwardIPC

/// A label an app of a managed user asks for (`label.show`): the daemon works out what the
/// app's token stands for, and their session's agent, as the agents' user, draws it inside
/// the app's window, which the X server must say the app's process made.
@_spi(Screenward) public struct LabelShow: Sendable, Hashable, Codable {
    public var id: UInt64
    public var contents: LabelContents
    public var style: Label.Style
    public var window: UInt
    /// The app's process, which must have made `window`.
    public var pid: Int32
    public var app: String

    public init(id: UInt64, contents: LabelContents, style: Label.Style, window: UInt, pid: Int32, app: String) {
        self.id = id
        self.contents = contents
        self.style = style
        self.window = window
        self.pid = pid
        self.app = app
    }
}

/// Whether the agent drew a label.
@_spi(Screenward) public struct LabelShown: Sendable, Hashable, Codable {
    public var id: UInt64
    /// Why it was not drawn.
    public var failure: String?

    public init(id: UInt64, failure: String? = nil) {
        self.id = id
        self.failure = failure
    }
}

@_spi(Screenward) extension AgentLinkMethods {
    /// Daemon → agent: draw an app's label in its window.
    public static let showLabel = PushKind<LabelShow>("agent.show-label")
    /// Agent → daemon: it was drawn, or why not.
    public static let labelShown = PushKind<LabelShown>("agent.label-shown")
}
