import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardIPC

/// A report of device activity drawn by the app's report extension: the app names a
/// context and a filter; the state owner computes the data, runs the extension (with no
/// network) and draws what it returns in a window of its own. The app's call gets nothing
/// back: not the data, not the picture (docs/reports.md).
public struct DeviceActivityReport: Sendable {
    /// Which of the extension's scenes draws the report.
    public struct Context: RawRepresentable, Hashable, Codable, Sendable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }

        public init(from decoder: any Decoder) throws { rawValue = try String(from: decoder) }
        public func encode(to encoder: any Encoder) throws { try rawValue.encode(to: encoder) }
    }

    public var context: Context
    public var filter: DeviceActivityFilter

    /// By default, today by hour.
    public init(_ context: Context, filter: DeviceActivityFilter? = nil) {
        self.context = context
        self.filter =
            filter
            ?? DeviceActivityFilter(segment: .hourly(during: Calendar.current.dateInterval(of: .day, for: Date())!))
    }

    public enum PresentationError: Error, CustomStringConvertible {
        case noBundleIdentifier
        /// The owner could not show it; its message says why.
        case failed(String)

        public var description: String {
            switch self {
            case .noBundleIdentifier:
                """
                the app has no bundle identifier: set ScreenwardApp.bundleIdentifier (or SCREENWARD_BUNDLE_ID) \
                before presenting a report
                """
            case .failed(let message): "the report could not be shown: \(message)"
            }
        }
    }

    /// Shows the report in Screenward's window (the state owner's: the agent's, in an account
    /// a guardian manages the session agent's, as its own user) and returns when the person
    /// closes it.
    public func present() async throws {
        guard ScreenwardApp.bundleIdentifier != nil else { throw PresentationError.noBundleIdentifier }
        do {
            _ = try await ScreenwardApp.client.call(
                ReportMethods.present, ReportPresentation(context: context, filter: filter),
                timeout: .seconds(24 * 3600))
        } catch let error as ServiceError {
            throw PresentationError.failed(error.message)
        }
    }

    /// The report window's program, for the owner that shows it: `$SCREENWARD_REPORT`, else
    /// `screenward-report` beside the running program (where the installer and `swift build`
    /// put Screenward's programs), else on `PATH`.
    @_spi(Screenward) public static func rendererPath(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String? {
        if let path = environment["SCREENWARD_REPORT"], !path.isEmpty { return path }
        let name = "screenward-report"
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        let folders =
            [URL(fileURLWithPath: me).deletingLastPathComponent().path]
            + (environment["PATH"] ?? "/usr/local/bin:/usr/bin").split(separator: ":").map(String.init)
        return folders.lazy.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
