import Foundation

/// A desktop session a test runs as one of its accounts (a private sway's, a private KWin's):
/// its programs start as that account, with the session's environment and nothing else of the
/// test's.
public protocol AccountSession {
    /// The account the session runs as.
    var user: String { get }
    /// What a program of the session has in its environment.
    var environment: [String: String] { get }
    /// Ends the session (its compositor, and with it the session's clients' connections).
    func stop()
}

extension AccountSession {
    /// Starts `arguments` as the account, in the session, with `extra` added to its environment.
    public func start(_ arguments: [String], environment extra: [String: String] = [:]) throws -> ChildProcess {
        let assignments = environment.merging(extra) { $1 }.map { "\($0.key)=\($0.value)" }.sorted()
        return try ChildProcess(
            URL(fileURLWithPath: "/usr/sbin/runuser"),
            ["-u", user, "--", "/usr/bin/env", "-i"] + assignments + arguments)
    }

    /// Runs `arguments` as the account, in the session, to its end (30 s at most).
    public func run(_ arguments: [String], environment extra: [String: String] = [:]) throws -> (
        status: Int32, output: String, error: String
    ) {
        let process = try start(arguments, environment: extra)
        guard let status = process.waitForExit(timeout: 30) else {
            process.stop()
            throw HarnessError.timedOut("\(arguments) as \(user)")
        }
        return (status, process.outputLines.joined(separator: "\n"), process.standardError)
    }
}

/// The session bus address in the environment of a process running `executable` (a compositor
/// `dbus-run-session` started, which made the bus for it).
func sessionBusAddress(ofProcessRunning executable: String) -> String? {
    let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    for pid in processes where Int32(pid) != nil {
        guard (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")) == executable,
            let environment = FileManager.default.contents(atPath: "/proc/\(pid)/environ")
        else { continue }
        for entry in environment.split(separator: 0) {
            let text = String(decoding: entry, as: UTF8.self)
            if text.hasPrefix("DBUS_SESSION_BUS_ADDRESS=") { return String(text.dropFirst(25)) }
        }
    }
    return nil
}
