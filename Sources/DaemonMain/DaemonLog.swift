import Foundation

/// Lines on standard error, which systemd puts in the journal.
struct DaemonLog: Sendable {
    let verbose: Bool

    func info(_ message: String) { write("info", message) }
    func warning(_ message: String) { write("warning", message) }
    func error(_ message: String) { write("error", message) }
    func debug(_ message: String) { if verbose { write("debug", message) } }

    private func write(_ level: String, _ message: String) {
        FileHandle.standardError.write(Data("screenward-daemon \(level): \(message)\n".utf8))
    }
}
