import Foundation
import ScreenwardIPC

/// One report window (`screenward-report --app …`), shown by the state owner for an app
/// (`report.present`) and waited for until the person closes it.
@_spi(Screenward) public struct ReportWindowRun: Sendable {
    public var program: String
    public var app: String
    public var presentation: ReportPresentation
    /// The window's environment: its display, and how it reaches the owner.
    public var environment: [String: String]

    public init(program: String, app: String, presentation: ReportPresentation, environment: [String: String]) {
        self.program = program
        self.app = app
        self.presentation = presentation
        self.environment = environment
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Waits until the window is closed; throws with the window's last words when it failed.
    public func run() throws {
        let filter = String(decoding: try JSONEncoder().encode(presentation.filter), as: UTF8.self)
        ProgramStart.prepare()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = ["--app", app, "--context", presentation.context.rawValue, "--filter-json", filter]
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        // A file, not a pipe: a window open for hours must never wait on a full pipe.
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent(
            "screenward-report-\(UUID().uuidString).log")
        guard FileManager.default.createFile(atPath: errors.path, contents: nil, attributes: [.posixPermissions: 0o600])
        else { throw Failure(description: "cannot create \(errors.path) for its messages") }
        defer { try? FileManager.default.removeItem(at: errors) }
        let errorFile = try FileHandle(forWritingTo: errors)
        process.standardError = environment["SCREENWARD_REPORT_TRACE"] != nil ? FileHandle.standardError : errorFile
        do {
            try process.run()
        } catch {
            throw Failure(description: "cannot start \(program): \(error.localizedDescription)")
        }
        process.waitUntilExit()
        try? errorFile.close()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let said = ((try? String(contentsOf: errors, encoding: .utf8)) ?? "").split(separator: "\n").suffix(3)
                .joined(separator: "; ")
            throw Failure(description: "screenward-report ended with status \(process.terminationStatus): \(said)")
        }
    }
}
