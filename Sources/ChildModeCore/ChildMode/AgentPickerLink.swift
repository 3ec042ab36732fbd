@_spi(Screenward) import FamilyControls
import Foundation
import ScreenwardIPC

/// The activity picker an app of a managed user asks for (`picker.present`), shown by their
/// session's agent, as the agents' user: the child's programs can neither trace it nor read
/// what it prints. The ids chosen go from the agent to the daemon, which answers the app with
/// its tokens.
@_spi(Screenward) public struct PickerShow: Sendable, Hashable, Codable {
    public var id: UInt64
    public var ticked: SelectionRequest
    public var headerText: String?
    public var footerText: String?
    /// What the child's ledger has seen in use (the agent cannot read it).
    public var seen: PickerSeen

    public init(id: UInt64, ticked: SelectionRequest, headerText: String?, footerText: String?, seen: PickerSeen) {
        self.id = id
        self.ticked = ticked
        self.headerText = headerText
        self.footerText = footerText
        self.seen = seen
    }

    /// The most applications, and websites, listed as seen.
    public static let maximumSeen = 2000
}

/// How a picker the agent showed ended.
@_spi(Screenward) public struct PickerClosed: Sendable, Hashable, Codable {
    public var id: UInt64
    /// The ids chosen; nil when cancelled or failed.
    public var chosen: SelectionRequest?
    /// Why the picker could not be shown, or failed.
    public var failure: String?

    public init(id: UInt64, chosen: SelectionRequest? = nil, failure: String? = nil) {
        self.id = id
        self.chosen = chosen
        self.failure = failure
    }
}

@_spi(Screenward) extension AgentLinkMethods {
    /// Daemon → agent: show the activity picker for an app.
    public static let showPicker = PushKind<PickerShow>("agent.show-picker")
    /// Agent → daemon: what was chosen in it.
    public static let pickerClosed = PushKind<PickerClosed>("agent.picker-closed")
}
