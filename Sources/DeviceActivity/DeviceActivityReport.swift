import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardIPC

/// A report of device activity drawn by the app's report extension: the app names a
/// context and a filter, Screenward computes the data, runs the extension (with no
/// network) and draws what it returns in a window of its own, or in a PNG file. The
/// app's call gets no data back (docs/reports.md says what is not closed yet).
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
        case rendererMissing
        case failed(status: Int32, message: String)

        public var description: String {
            switch self {
            case .noBundleIdentifier:
                """
                the app has no bundle identifier: set ScreenwardApp.bundleIdentifier (or SCREENWARD_BUNDLE_ID) \
                before presenting a report
                """
            case .rendererMissing:
                """
                Screenward's report window (screenward-report) is not installed: it was looked for in \
                SCREENWARD_REPORT, on PATH and beside this program
                """
            case .failed(let status, let message):
                "the report could not be shown (screenward-report exited with status \(status)): \(message)"
            }
        }
    }

    /// Shows the report in Screenward's window and returns when the person closes it.
    public func present() throws {
        try run(extraArguments: [])
    }

    /// Draws the report into a PNG file (no display needed).
    public func renderPNG(to url: URL) throws {
        try run(extraArguments: ["--png", url.path])
    }

    private func run(extraArguments: [String]) throws {
        guard let app = ScreenwardApp.bundleIdentifier else { throw PresentationError.noBundleIdentifier }
        guard let program = Self.rendererPath() else { throw PresentationError.rendererMissing }
        let filterJSON = String(decoding: try JSONEncoder().encode(filter), as: UTF8.self)
        ProgramStart.prepare()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = ["--app", app, "--context", context.rawValue, "--filter-json", filterJSON] + extraArguments
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let text = String(decoding: message, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw PresentationError.failed(status: process.terminationStatus, message: String(text.suffix(2000)))
        }
    }

    /// SCREENWARD_REPORT, else `screenward-report` on PATH, else beside this program.
    static func rendererPath() -> String? {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["SCREENWARD_REPORT"], !path.isEmpty { return path }
        let name = "screenward-report"
        let folders =
            (environment["PATH"] ?? "/usr/local/bin:/usr/bin").split(separator: ":").map(String.init)
            + [URL(fileURLWithPath: CommandLine.arguments.first ?? "").deletingLastPathComponent().path]
        return folders.lazy.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
