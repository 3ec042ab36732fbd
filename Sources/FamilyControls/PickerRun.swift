import Foundation
import ScreenwardIPC

/// One run of `screenward-picker --choose`: the ids ticked go in, the ids chosen come out.
struct PickerRun {
    let program: URL
    let ticked: SelectionRequest
    let headerText: String?
    var footerText: String? = nil

    /// The exit status of a cancelled picker (nothing chosen).
    static let cancelledStatus: Int32 = 1

    /// The ids chosen; nil when the person cancelled. Waits off the caller's executor.
    func result() async throws -> SelectionRequest? {
        try await Task.detached { try run() }.value
    }

    private func run() throws -> SelectionRequest? {
        var arguments = [
            "--choose", "--selected-json", String(decoding: try JSONEncoder().encode(ticked), as: UTF8.self),
        ]
        if let headerText { arguments += ["--header", headerText] }
        if let footerText { arguments += ["--footer", footerText] }
        ProgramStart.prepare()
        let process = Process()
        process.executableURL = program
        process.arguments = arguments
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
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        // Asked for its trace (tests, benchmarks), the picker writes it where the app writes.
        let traced = ProcessInfo.processInfo.environment["SCREENWARD_PICKER_TRACE"] != nil
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
}
