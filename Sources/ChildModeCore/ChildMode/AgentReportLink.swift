@_spi(Screenward) import DeviceActivity
import Foundation
import ScreenwardIPC

/// An app's report (`report.present`) for a managed user, shown by their session's agent, as
/// the agents' user: the window asks the daemon for the drawing with `ticket`, a secret only
/// the agent's processes hold, so neither the app nor any program of the child's reads it.
@_spi(Screenward) public struct ReportShow: Sendable, Hashable, Codable {
    public var id: UInt64
    public var ticket: String
    public var app: String
    public var presentation: ReportPresentation

    public init(id: UInt64, ticket: String, app: String, presentation: ReportPresentation) {
        self.id = id
        self.ticket = ticket
        self.app = app
        self.presentation = presentation
    }
}

/// A report window the agent showed was closed (or could not be shown: `failure`).
@_spi(Screenward) public struct ReportClosed: Sendable, Hashable, Codable {
    public var id: UInt64
    public var failure: String?

    public init(id: UInt64, failure: String? = nil) {
        self.id = id
        self.failure = failure
    }
}

@_spi(Screenward) extension AgentLinkMethods {
    /// Daemon → agent: show an app's report.
    public static let showReport = PushKind<ReportShow>("agent.show-report")
    /// Agent → daemon: the report's window was closed.
    public static let reportClosed = PushKind<ReportClosed>("agent.report-closed")
}
