import Foundation
import Glibc
import SessionHarness
import TestSupport
import XCTest

/// A child cannot starve the daemon or make it wait: their connections are bounded (32 at
/// once, each line at most 1 MiB), guardians and agents are still answered, and the X
/// cookie the daemon reads from the child's home is read without waiting on it. Each as
/// the real managed user against the real daemon.
final class DaemonStarvationTests: XCTestCase {
    private var desktop: ManagedDesktop!
    private var fixture: DaemonFixture { desktop.fixture }

    override func setUpWithError() throws {
        try ManagedDesktop.requirements()
        desktop = try ManagedDesktop(fixture: try DaemonFixture())
    }

    override func tearDown() {
        desktop?.tearDown()
    }

    func testAChildsFloodOfConnectionsLeavesGuardiansAndAgentsAnswered() throws {
        try desktop.startSessionWithTheGameShielded("c9")
        let daemon = try XCTUnwrap(fixture.daemon?.pid)
        // The control: with nothing flooding, the child's own command line is answered.
        XCTAssertEqual(try desktop.runAsKid([fixture.program("screenward"), "usage"]).status, 0)
        let memoryBefore = try Self.residentKiB(of: daemon)

        let flood = try ConnectionFlood(desktop: desktop)
        defer { flood.stop() }
        let line = flood.report
        print("the child's flood: \(line)")
        XCTAssertEqual(line, "connected 1000 refused 968", "32 connections held, every other one turned away")

        // A guardian is answered at once, again and again.
        var slowest: TimeInterval = 0
        for _ in 0..<10 {
            let start = Date()
            let listed = try fixture.screenward(as: "root", ["child", "list"])
            slowest = max(slowest, Date().timeIntervalSince(start))
            XCTAssertEqual(listed.status, 0, listed.error)
            XCTAssertTrue(listed.output.contains(desktop.kid), listed.output)
        }
        print("a guardian's child list during the flood: slowest of 10 in \(Int(slowest * 1000)) ms")
        XCTAssertLessThan(slowest, 5, "answered, not starved (the benchmark measures how fast)")
        let grown = try Self.residentKiB(of: daemon) - memoryBefore
        print("the daemon's memory grew by \(grown / 1024) MiB during the flood")
        XCTAssertLessThan(grown, 100 * 1024, "at most 32 lines of 1 MiB are held for one user")

        // An agent killed now is replaced: the daemon still has descriptors to start one.
        let agent = try XCTUnwrap(desktop.agentPID())
        kill(agent, SIGKILL)
        try desktop.waitFor("a new agent covering the game") {
            desktop.agentPID() != agent && desktop.currentAgentCovers(1)
        }

        let events = try fixture.screenward(as: "root", ["child", "events", desktop.kid]).output
        XCTAssertEqual(events.components(separatedBy: "turned away").count - 1, 1, "one event for the flood: \(events)")
    }

    func testAFifoInPlaceOfTheChildsCookieLocksTheSessionWithoutStoppingTheDaemon() throws {
        try desktop.startSessionWithTheGameShielded("c9")
        let fifo = "/home/\(desktop.kid)/.Xauthority"
        XCTAssertEqual(try desktop.runAsKid(["sh", "-c", "rm -f \(fifo) && mkfifo \(fifo)"]).status, 0)
        let agent = try XCTUnwrap(desktop.agentPID())
        kill(agent, SIGKILL)

        // Relaunches cannot read a cookie; the daemon goes on answering, then locks the session.
        let start = Date()
        let listed = try fixture.screenward(as: "root", ["child", "list"])
        XCTAssertEqual(listed.status, 0, listed.error)
        XCTAssertLessThan(Date().timeIntervalSince(start), 5)
        try desktop.waitFor("the lock", timeout: 20) { try desktop.logindCalls().contains("LockSession c9") }
        let log = fixture.daemon?.standardError ?? ""
        XCTAssertTrue(log.contains("no X authority for session c9"), String(log.suffix(3000)))

        // One agent-failed event for the kill and the failed relaunches after it, not one per try.
        let events = try fixture.screenward(as: "root", ["child", "events", desktop.kid, "--json"]).output
        XCTAssertEqual(events.components(separatedBy: "agent-failed").count - 1, 1, events)
        XCTAssertTrue(events.contains("session-locked"), events)
    }

    private static func residentKiB(of pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { throw LocalUsersError(description: "no VmRSS in /proc/\(pid)/status") }
        return kib
    }
}
