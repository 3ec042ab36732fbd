@_spi(Screenward) import DeviceActivity
import Foundation
import ScreenTimePolicy
import ScreenwardIPC

/// `report.run` for one person: the app's data, its report extension run with it, the
/// view it drew. The same in the agent and in the daemon, which supply where the data
/// is and how the extension runs (as whom, with what environment).
public struct AppReportRun: Sendable {
    public var data: AppReportData
    public var installed: [String: InstalledApp]
    public var launcher: ReportExtensionRun

    public init(data: AppReportData, installed: [String: InstalledApp], launcher: ReportExtensionRun) {
        self.data = data
        self.installed = installed
        self.launcher = launcher
    }

    @_spi(Screenward) public func run(_ request: ReportRunRequest, now: Date) throws -> ReportRendering {
        guard let app = installed[request.app] else {
            // swift-format-ignore
            throw ServiceError(
                .invalidArgument,
                Phrase("no app {app} is installed (its manifest names its report extension; `screenward extensions` lists them)", context: "service", ["app": String(request.app.prefix(120))]))
        }
        guard let found = app.extensions[.deviceActivityReport] else {
            throw ServiceError(
                .invalidArgument,
                Phrase(
                    "{app} has no report extension (a `device-activity-report` extension in its manifest)",
                    context: "service", ["app": app.displayName]))
        }
        let interval = request.filter.segmentInterval.interval
        guard interval.duration > 0 else {
            throw ServiceError(.invalidArgument, Phrase("the filter's range is empty", context: "service"))
        }
        let activity = try data.data(for: request.app, filter: request.filter, now: now)
        do {
            let view = try launcher.draw(found, app: request.app, context: request.context, data: activity)
            return ReportRendering(appName: app.displayName, context: request.context, view: view)
        } catch let failure as ReportExtensionRun.Failure {
            throw ServiceError(.internalFailure, failure.phrase)
        }
    }
}
