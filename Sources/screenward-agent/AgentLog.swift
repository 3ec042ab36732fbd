import Foundation

/// Timestamped lines on standard error: the agent runs in the foreground of a
/// session (or under a service manager) and its log is read there.
struct AgentLog: Sendable {
    var verbose: Bool

    func info(_ message: String) { write("info", message) }
    func warning(_ message: String) { write("warning", message) }
    func error(_ message: String) { write("error", message) }
    func debug(_ message: @autoclosure () -> String) { if verbose { write("debug", message()) } }

    private func write(_ level: String, _ message: String) {
        let stamp = Date().formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true))
        FileHandle.standardError.write(Data("\(stamp) screenward-agent \(level): \(message)\n".utf8))
    }
}
