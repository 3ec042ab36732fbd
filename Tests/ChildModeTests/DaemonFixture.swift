import Foundation
import Glibc
import SessionHarness
import TestSupport
import XCTest

/// A real `screenward-daemon` running as root for one test, with its state, socket and
/// runtime files in a private folder other users can traverse, and its session agents
/// running as a system user made for the test.
final class DaemonFixture {
    let users = LocalUsers()
    let work: URL
    let agentUser: String
    private(set) var daemon: ChildProcess?

    var socket: String { work.appendingPathComponent("run/daemon.sock").path }
    var state: URL { work.appendingPathComponent("state") }
    var runtime: URL { work.appendingPathComponent("run") }

    /// Ends the test unless it runs as root with the tools it needs.
    static func requireRoot() throws {
        guard geteuid() == 0 else { try cannotRun("creating users and running the system daemon needs root") }
        for program in ["/usr/sbin/useradd", "/usr/sbin/runuser", "/usr/bin/setpriv"] where !FileManager.default.isExecutableFile(atPath: program) {
            try cannotRun("\(program) is missing (apt-get install passwd util-linux)")
        }
    }

    init() throws {
        work = URL(fileURLWithPath: "/tmp/screenward-daemon-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        agentUser = try users.add("agent")
    }

    func startDaemon(environment: [String: String] = [:]) throws {
        let daemon = try ChildProcess(
            try ProjectPrograms.url(of: "screenward-daemon"),
            [
                "--state-directory", state.path, "--socket", socket, "--runtime-directory", runtime.path,
                "--agent-user", agentUser, "--verbose",
            ], environment: environment)
        self.daemon = daemon
        try daemon.waitForStandardError(containing: "listening on", timeout: 10)
    }

    func stopDaemon() {
        guard let daemon, daemon.isRunning else { return }
        kill(daemon.pid, SIGTERM)
        _ = daemon.waitForExit(timeout: 10)
    }

    /// `screenward ARGUMENTS` as `user`, against this daemon.
    func screenward(as user: String, _ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        try users.run(as: user, [try ProjectPrograms.url(of: "screenward").path] + arguments, environment: ["SCREENWARD_DAEMON_SOCKET": socket])
    }

    func tearDown() {
        stopDaemon()
        users.removeAll()
        try? FileManager.default.removeItem(at: work)
    }
}
