import Foundation
import ScreenwardIPC

/// One run of `screenward-picker --choose`: the ids ticked go in, the ids chosen come out.
/// The state owner runs it for an app (`picker.present`), so the ids stay with the owner.
@_spi(Screenward) public struct PickerRun: Sendable {
    public let program: URL
    public let ticked: SelectionRequest
    public let headerText: String?
    public var footerText: String? = nil
    /// What to list as seen in use, when the picker cannot read the ledger itself.
    public var seen: PickerSeen? = nil
    /// The X display (nil: the picker's `DISPLAY`).
    public var display: String? = nil
    /// The picker's environment (nil: this process's).
    public var environment: [String: String]? = nil

    public init(
        program: URL, ticked: SelectionRequest, headerText: String?, footerText: String? = nil,
        seen: PickerSeen? = nil, display: String? = nil, environment: [String: String]? = nil
    ) {
        self.program = program
        self.ticked = ticked
        self.headerText = headerText
        self.footerText = footerText
        self.seen = seen
        self.display = display
        self.environment = environment
    }

    /// The exit status of a cancelled picker (nothing chosen).
    static let cancelledStatus: Int32 = 1

    /// The ids chosen; nil when the person cancelled. Waits off the caller's executor.
    public func result() async throws -> SelectionRequest? {
        try await Task.detached { try run() }.value
    }

    /// The ids chosen; nil when the person cancelled. Waits for the person.
    public func run() throws -> SelectionRequest? {
        var arguments = [
            "--choose", "--selected-json", String(decoding: try JSONEncoder().encode(ticked), as: UTF8.self),
        ]
        if let headerText { arguments += ["--header", headerText] }
        if let footerText { arguments += ["--footer", footerText] }
        // What was seen may be long (every app a child ever used): on standard input, not in argv.
        let seenJSON = try seen.map { try JSONEncoder().encode($0) }
        if seenJSON != nil { arguments.append("--seen-on-stdin") }
        if let display { arguments += ["--display", display] }
        ProgramStart.prepare()
        let process = Process()
        process.executableURL = program
        process.arguments = arguments
        if let environment { process.environment = environment }
        // Standard error goes to a file, not a pipe: the picker's trace may be long, and a
        // full pipe nobody reads would stop it.
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent(
            "screenward-picker-\(UUID().uuidString).log")
        guard FileManager.default.createFile(atPath: errors.path, contents: nil) else {
            throw FamilyActivityPickerError.pickerFailed("cannot create \(errors.path) for its messages")
        }
        defer { try? FileManager.default.removeItem(at: errors) }
        let errorFile = try FileHandle(forWritingTo: errors)
        defer { try? errorFile.close() }
        let output = Pipe()
        // From a file rather than a pipe: a picker that dies before reading would leave a
        // broken pipe, and its SIGPIPE would end the owner that writes it.
        process.standardInput = try seenJSON.map(Self.unlinkedFile) ?? FileHandle.nullDevice
        process.standardOutput = output
        // Asked for its trace (tests, benchmarks), the picker writes it where the app writes.
        let traced = (environment ?? ProcessInfo.processInfo.environment)["SCREENWARD_PICKER_TRACE"] != nil
        process.standardError = traced ? FileHandle.standardError : errorFile
        do {
            try process.run()
        } catch {
            throw FamilyActivityPickerError.pickerFailed("cannot start \(program.path): \(error.localizedDescription)")
        }
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let message =
            (try? String(contentsOf: errors, encoding: .utf8))?.split(separator: "\n").filter {
                !$0.hasPrefix("picker ")
            }
            .suffix(3).joined(separator: "; ") ?? ""
        guard process.terminationReason == .exit else {
            throw FamilyActivityPickerError.pickerFailed(
                "\(program.lastPathComponent) was killed by signal \(process.terminationStatus)")
        }
        switch process.terminationStatus {
        case 0:
            do {
                return try JSONDecoder().decode(SelectionRequest.self, from: printed)
            } catch {
                throw FamilyActivityPickerError.pickerFailed("it printed no selection of ids (\(error)); \(message)")
            }
        case Self.cancelledStatus: return nil
        case let status: throw FamilyActivityPickerError.pickerFailed("exit status \(status): \(message)")
        }
    }

    /// `data` in a file only this process can still open: created private, opened, unlinked.
    private static func unlinkedFile(_ data: Data) throws -> FileHandle {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "screenward-picker-seen-\(UUID().uuidString).json"
        ).path
        guard FileManager.default.createFile(atPath: path, contents: data, attributes: [.posixPermissions: 0o600])
        else {
            throw FamilyActivityPickerError.pickerFailed("cannot create \(path) for what was seen in use")
        }
        defer { try? FileManager.default.removeItem(atPath: path) }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw FamilyActivityPickerError.pickerFailed("cannot read back \(path)")
        }
        return handle
    }
}
