import ArgumentParser
import Foundation
import ScreenwardCore

/// Runs one of Screenward's GTK programs (`screenward-report`, `screenward-picker`) for a
/// subcommand, or an app (`screenward app run`), and ends as it does: the command line
/// itself links no GTK.
enum SiblingProgram {
    static func run(_ program: URL, _ arguments: [String], environment: [String: String]? = nil) throws {
        let process = Process()
        process.executableURL = program
        process.arguments = arguments
        if let environment { process.environment = environment }
        // Foundation changes into the current folder before it starts the program; a folder
        // this user may not enter (another user's, after `runuser`) would fail the start
        // with "permission denied". Such a folder holds nothing the program can use anyway.
        let here = FileManager.default.currentDirectoryPath
        if !FileManager.default.isExecutableFile(atPath: here) {
            process.currentDirectoryURL = URL(fileURLWithPath: "/")
        }
        do {
            try process.run()
        } catch {
            // Foundation's error does not say which program would not start; the message does.
            // swift-format-ignore
            throw CLIError(texts("cannot start {program}: {reason}", context: "cli", ["program": program.path, "reason": error.localizedDescription]))
        }
        process.waitUntilExit()
        guard process.terminationReason == .exit else { throw ExitCode(128 + process.terminationStatus) }
        if process.terminationStatus != 0 { throw ExitCode(process.terminationStatus) }
    }
}
