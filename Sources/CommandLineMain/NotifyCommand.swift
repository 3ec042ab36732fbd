import ArgumentParser
import Foundation
import GLibRuntime
import ScreenwardCore

/// Shows one desktop notification on the session bus of this process's user. The
/// system daemon runs it as a managed user (a user's session bus lets only that user
/// in) to warn them of their rules.
struct NotifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notify",
        abstract: texts(
            "Show a desktop notification (the system daemon's warnings to a managed user).", context: "help"),
        shouldDisplay: false)

    @Option(help: ArgumentHelp(texts("The notification's summary.", context: "help"))) var summary: String
    @Option(help: ArgumentHelp(texts("Its body.", context: "help"))) var body = ""
    @Option(
        help: ArgumentHelp(
            texts("The session bus (default: $DBUS_SESSION_BUS_ADDRESS, else /run/user/UID/bus).", context: "help")))
    var bus: String?

    func run() throws {
        // A reason is GLib's or the notification server's, as they gave it.
        switch DesktopNotifications(sessionBusAddress: bus).sendAndWait(summary: summary, body: body) {
        case .shown(let id): print(texts("shown ({id})", context: "cli", ["id": String(id)]))
        case .noService(let reason):
            FileHandle.standardError.write(
                Data((texts("not shown: {reason}", context: "cli", ["reason": reason]) + "\n").utf8))
            throw ExitCode(2)
        case .failed(let reason):
            FileHandle.standardError.write(
                Data((texts("failed: {reason}", context: "cli", ["reason": reason]) + "\n").utf8))
            throw ExitCode.failure
        }
    }
}
