import Foundation
import Glibc
import SessionHarness
import TestSupport
import XCTest

/// A managed user's session (`ManagedDesktop`): the daemon starts the session's agent
/// itself, as the agents' user; the agent covers the game the child's stores shield; the
/// child cannot kill it; root's kill -9 brings a new agent and the shield back, and the
/// child's events say what happened.
final class ManagedSessionTests: XCTestCase {
    private var desktop: ManagedDesktop!
    private var fixture: DaemonFixture { desktop.fixture }

    override func setUpWithError() throws {
        try ManagedDesktop.requirements()
        desktop = try ManagedDesktop(fixture: try DaemonFixture())
    }

    override func tearDown() {
        desktop?.tearDown()
    }

    func testTheDaemonsAgentCoversTheChildsShieldedGameAndComesBackAfterAKill() throws {
        let kid = desktop.kid
        try desktop.startSessionWithTheGameShielded("c9")
        let agent = try XCTUnwrap(Self.agentPID(session: "c9"), "no agent process")
        let owner = try String(contentsOfFile: "/proc/\(agent)/status", encoding: .utf8)
        XCTAssertFalse(owner.contains("Uid:\t\(desktop.uid)\t"), "the agent must not run as the child: \(owner.prefix(400))")

        // The child cannot kill it.
        XCTAssertNotEqual(try fixture.users.run(as: kid, ["kill", "-9", "\(agent)"]).status, 0)
        XCTAssertEqual(Self.agentPID(session: "c9"), agent)

        // Root can; a new agent covers the game again.
        let reportsBefore = desktop.coverReports(1)
        let killed = Date()
        kill(agent, SIGKILL)
        try desktop.waitFor("the shield back after the kill") { desktop.coverReports(1) > reportsBefore }
        let back = Date().timeIntervalSince(killed)
        print("kill -9 → new agent's shield reported over the game: \(Int(back * 1000)) ms")
        XCTAssertLessThan(back, 5, "the shield must come back promptly (target: within 1 s; here including GTK's start)")
        XCTAssertNotEqual(Self.agentPID(session: "c9"), agent)

        let events = try fixture.screenward(as: "root", ["child", "events", kid, "--json"])
        XCTAssertTrue(events.output.contains("agent-failed"), events.output)
    }

    /// The pid of the agent the daemon runs for `session`.
    static func agentPID(session: String) -> Int32? {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = Int32(entry), let cmdline = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(entry)/cmdline")) else { continue }
            let arguments = cmdline.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            if arguments.first?.hasSuffix("screenward-agent") == true, let index = arguments.firstIndex(of: "--managed-session"),
                arguments.indices.contains(index + 1), arguments[index + 1] == session
            {
                return pid
            }
        }
        return nil
    }
}
