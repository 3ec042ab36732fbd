import Foundation
import ScreenwardBasics

/// Timestamped lines on standard error: the agent runs in the foreground of a
/// session (or under a service manager) and its log is read there.
struct AgentLog: Sendable {
    var verbose: Bool

    func info(_ message: String) { write("info", message) }
    func warning(_ message: String) { write("warning", message) }
    func error(_ message: String) { write("error", message) }
    func debug(_ message: @autoclosure () -> String) { if verbose { write("debug", message()) } }

    private func write(_ level: String, _ message: String) {
        FileHandle.standardError.write(
            Data("\(LogTimestamp.string(Date())) screenward-agent \(level): \(message)\n".utf8))
    }
}
