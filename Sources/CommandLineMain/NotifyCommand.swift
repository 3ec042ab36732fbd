import ArgumentParser
import Foundation
import GLibRuntime

/// Shows one desktop notification on the session bus of this process's user. The
/// system daemon runs it as a managed user (a user's session bus lets only that user
/// in) to warn them of their rules.
struct NotifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notify",
        abstract: "Show a desktop notification (the system daemon's warnings to a managed user).",
        shouldDisplay: false)

    @Option(help: "The notification's summary.") var summary: String
    @Option(help: "Its body.") var body = ""
    @Option(help: "The session bus (default: $DBUS_SESSION_BUS_ADDRESS, else /run/user/UID/bus).") var bus: String?

    func run() throws {
        switch DesktopNotifications(sessionBusAddress: bus).sendAndWait(summary: summary, body: body) {
        case .shown(let id): print("shown (\(id))")
        case .noService(let reason):
            FileHandle.standardError.write(Data("not shown: \(reason)\n".utf8))
            throw ExitCode(2)
        case .failed(let reason):
            FileHandle.standardError.write(Data("failed: \(reason)\n".utf8))
            throw ExitCode.failure
        }
    }
}
