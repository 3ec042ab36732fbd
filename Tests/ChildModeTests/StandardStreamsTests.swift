import Foundation
import Glibc
import SessionHarness
import TestSupport
import XCTest

/// Programs started with standard input, output and error closed, as cron, a service
/// manager or a careless parent starts them: each opens /dev/null on them before anything
/// else (`StandardStreams`), so its own files never take descriptors 0–2 (the daemon's log
/// lines would go into its database) and the programs it starts get working ones.
final class StandardStreamsTests: XCTestCase {
    private var fixture: DaemonFixture!

    override func setUpWithError() throws {
        try DaemonFixture.requireRoot()
        fixture = try DaemonFixture()
    }

    override func tearDown() {
        fixture?.tearDown()
    }

    /// `arguments` run through `sh` with 0, 1 and 2 closed.
    private static func closingStreams(_ arguments: [String]) -> [String] {
        ["/bin/sh", "-c", "exec \"$@\" <&- >&- 2>&-", "sh"] + arguments
    }

    /// What descriptors 0–2 of process `pid` are (as root reads /proc).
    private static func standardStreams(of pid: Int32) -> [String] {
        (0...2).map { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")) ?? "closed" }
    }

    func testTheDaemonStartedWithoutStandardStreamsServesAndKeepsItsFilesOffThem() throws {
        let daemon = try ChildProcess(URL(fileURLWithPath: "/bin/sh"), Array(Self.closingStreams(fixture.daemonCommand()).dropFirst()))
        defer { daemon.stop() }
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: fixture.socket) {
            guard Date() < deadline, daemon.isRunning else {
                return XCTFail("the daemon did not listen on \(fixture.socket) (running: \(daemon.isRunning))")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        XCTAssertEqual(Self.standardStreams(of: daemon.pid), ["/dev/null", "/dev/null", "/dev/null"])

        let kid = try fixture.users.add("kid")
        let added = try fixture.screenward(as: "root", ["child", "add", kid])
        XCTAssertEqual(added.status, 0, added.error)
        let listed = try fixture.screenward(as: "root", ["child", "list", "--json"])
        XCTAssertEqual(listed.status, 0, listed.error)
        XCTAssertTrue(listed.output.contains("\"\(kid)\""), listed.output)
        // Its database took no standard descriptor: nothing it logs went into it.
        for (descriptor, target) in Self.standardStreams(of: daemon.pid).enumerated() {
            XCTAssertFalse(target.hasSuffix(".sqlite"), "descriptor \(descriptor) is \(target)")
        }
    }

    func testTheCommandLineWithoutStandardStreamsStartsItsReportProgram() throws {
        let person = try fixture.users.add("person")
        let png = "/home/\(person)/report.png"
        let report = try fixture.users.run(
            as: person, Self.closingStreams([fixture.program("screenward"), "report", "--png", png]),
            environment: ["HOME": "/home/\(person)", "SCREENWARD_DAEMON_SOCKET": fixture.socket])
        XCTAssertEqual(report.status, 0, "screenward report with its streams closed: \(report.output) \(report.error)")
        let drawn = try Data(contentsOf: URL(fileURLWithPath: png))
        XCTAssertEqual(Array(drawn.prefix(4)), [0x89, 0x50, 0x4E, 0x47], "a PNG")
    }
}
