import Foundation
import ScreenwardIPC

/// The request that runs an app's report extension, and what passes between the owner
/// and the extension.
@_spi(Screenward) public enum ReportMethods {
    /// Runs `app`'s report extension for a context and filter, and returns what it drew.
    public static let run = ServiceMethod<ReportRunRequest, ReportRendering>("report.run")
    /// Shows the calling app's report in the owner's own window, and answers when the person
    /// closes it: what was drawn never reaches the app.
    public static let present = ServiceMethod<ReportPresentation, Empty>("report.present")
}

/// What `DeviceActivityReport.present()` asks the owner to show.
@_spi(Screenward) public struct ReportPresentation: Codable, Sendable, Hashable {
    public var context: DeviceActivityReport.Context
    /// With the app's own tokens.
    public var filter: DeviceActivityFilter

    public init(context: DeviceActivityReport.Context, filter: DeviceActivityFilter) {
        self.context = context
        self.filter = filter
    }
}

@_spi(Screenward) public struct ReportRunRequest: Codable, Sendable, Hashable {
    /// The bundle identifier of the app whose report extension draws the report.
    public var app: String
    public var context: DeviceActivityReport.Context
    /// With the app's own tokens.
    public var filter: DeviceActivityFilter
    /// A managed user's report (guardians); nil: the caller's own.
    public var user: String?
    /// The window a managed session's agent shows for an app (`report.present`) names the
    /// report it was opened for by the daemon's one-time secret.
    public var ticket: String?

    public init(
        app: String, context: DeviceActivityReport.Context, filter: DeviceActivityFilter, user: String? = nil,
        ticket: String? = nil
    ) {
        self.app = app
        self.context = context
        self.filter = filter
        self.user = user
        self.ticket = ticket
    }
}

/// A report drawn by an app's extension, for Screenward to show.
@_spi(Screenward) public struct ReportRendering: Codable, Sendable, Hashable {
    /// The app's display name (from its manifest), for the window's title.
    public var appName: String
    public var context: DeviceActivityReport.Context
    public var view: ReportView

    public init(appName: String, context: DeviceActivityReport.Context, view: ReportView) {
        self.appName = appName
        self.context = context
        self.view = view
    }
}

/// What the owner writes to a report extension's standard input (then closes it).
@_spi(Screenward) public struct ReportExtensionRequest: Codable, Sendable {
    public static let currentFormat = 1
    public var format: Int
    public var context: DeviceActivityReport.Context
    public var data: [DeviceActivityData]

    public init(context: DeviceActivityReport.Context, data: [DeviceActivityData]) {
        format = Self.currentFormat
        self.context = context
        self.data = data
    }
}

/// What a report extension writes to its standard output: one JSON object.
@_spi(Screenward) public struct ReportExtensionReply: Codable, Sendable {
    public var view: ReportView?
    public var error: String?

    public init(view: ReportView?, error: String?) {
        self.view = view
        self.error = error
    }

    /// The most a reply may be (an image included).
    public static let maximumBytes = 8 << 20
}
