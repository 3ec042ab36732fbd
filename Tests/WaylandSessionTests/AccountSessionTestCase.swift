import Foundation
import SessionHarness
import TestSupport
import XCTest

/// What the tests of a compositor run as a real account share: the account and its copies of
/// the programs, a work folder it may enter, the agent and the command line run as it in the
/// session, and everything ended and removed after each test.
class AccountSessionTestCase: XCTestCase {
    var users: LocalUsers?
    /// The account's name without `LocalUsers`' prefix.
    private var accountName = ""
    var work: URL!
    var session: (any AccountSession)?
    var agent: ChildProcess?
    var clients: [ChildProcess] = []

    /// A work folder named after `prefix`, which every account may enter.
    func makeWork(_ prefix: String) throws {
        work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: work.path)
    }

    /// Ends the test unless sway can run here as a test's account (root, and sway, foot, grim
    /// and wtype installed).
    func requireSway() throws {
        guard geteuid() == 0 else { try cannotRun("sway runs as a real account this test makes: root only") }
        guard PrivateWaylandSession.canStart() else {
            try cannotRun("sway, foot, grim or wtype is missing (apt-get install sway foot grim wtype)")
        }
    }

    /// A real account `name`, with the agent and the command line copied where it can run them.
    func makeAccount(_ name: String) throws -> String {
        let users = LocalUsers()
        self.users = users
        accountName = name
        let user = try users.add(name)
        try ProgramCopies.install(["screenward-agent", "screenward"], in: work.appendingPathComponent("installed"))
        return user
    }

    override func tearDownWithError() throws {
        for client in clients { client.stop(grace: 1) }
        agent?.stop()
        session?.stop()
        if let users {
            _ = try? LocalUsers.capture("/usr/bin/pkill", ["-KILL", "-u", users.prefix + accountName])
            Thread.sleep(forTimeInterval: 0.3)
            users.removeAll()
        }
        if let work { try? FileManager.default.removeItem(at: work) }
        try super.tearDownWithError()
    }

    var bin: String { work.appendingPathComponent("installed/bin").path }

    var agentLog: String { agent?.standardError ?? "" }

    /// The person's own agent (no system daemon) in `session`, with `arguments`, once it tracks.
    func startAgent(in session: any AccountSession, _ arguments: [String]) throws {
        let process = try session.start(
            ["\(bin)/screenward-agent"] + arguments,
            environment: ["SCREENWARD_DAEMON_SOCKET": "/nonexistent/daemon.sock"])
        agent = process
        try process.waitForStandardError(containing: "tracking", timeout: 20)
    }

    func cli(_ arguments: [String], in session: any AccountSession) throws -> (
        status: Int32, output: String, error: String
    ) {
        try session.run(
            ["\(bin)/screenward"] + arguments, environment: ["SCREENWARD_DAEMON_SOCKET": "/nonexistent/daemon.sock"])
    }

    /// Seconds per application over all recorded time (`screenward usage --json`).
    func usageSeconds(in session: any AccountSession) throws -> [String: Double] {
        let run = try cli(["usage", "--json", "--since", "2000-01-01", "--until", "now"], in: session)
        let figures = try JSONDecoder().decode(UsageFigures.self, from: Data(run.output.utf8))
        return Dictionary(figures.apps.map { ($0.id, $0.seconds) }) { $0 + $1 }
    }

    func waitFor(_ what: String, timeout: TimeInterval = 20, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return }
            Thread.sleep(forTimeInterval: 0.1)
        }
        XCTFail("timed out waiting for \(what)\n\(agentLog.suffix(3000))")
        throw HarnessError.timedOut(what)
    }
}
