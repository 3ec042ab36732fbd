import Foundation
import Glibc
import SessionHarness
import TestSupport
import XCTest

/// Programs started with standard input, output and error closed, as cron, a service
/// manager or a careless parent starts them: each opens /dev/null on them before anything
/// else (`ProgramStart`), so its own files never take descriptors 0–2 (the daemon's log
/// lines would go into its database) and the programs it starts get working ones. And a
/// program handed a descriptor above its limit on open files still starts its helpers.
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
        (0...2).map {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")) ?? "closed"
        }
    }

    func testTheDaemonStartedWithoutStandardStreamsServesAndKeepsItsFilesOffThem() throws {
        let daemon = try ChildProcess(
            URL(fileURLWithPath: "/bin/sh"), Array(Self.closingStreams(fixture.daemonCommand()).dropFirst()))
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

    /// A descriptor handed on above the program's soft limit on open files, as a test process
    /// holding hundreds of files hands one on through runuser: Foundation's Process refused to
    /// start anything (EBADF) until the program raised its soft limit first (`ProgramStart`).
    func testTheCommandLineStartsItsReportProgramWithADescriptorInheritedAboveItsLimit() throws {
        let person = try fixture.users.add("person")
        let png = "/home/\(person)/report.png"
        let inner = "ulimit -Sn 4096 && exec 3000</dev/null && ulimit -Sn 1024 && exec \"$@\""
        let outer =
            """
            ulimit -n 4096 && exec /usr/sbin/runuser -u \"$1\" -- /usr/bin/env HOME=/home/$1 \
            SCREENWARD_DAEMON_SOCKET=\"$2\" /bin/bash -c \"$3\" bash \"$4\" report --png \"$5\"
            """
        let report = try LocalUsers.capture(
            "/bin/sh", ["-c", outer, "sh", person, fixture.socket, inner, fixture.program("screenward"), png])
        XCTAssertEqual(
            report.status, 0,
            "screenward report with descriptor 3000 open and a soft limit of 1024: \(report.output) \(report.error)")
        let drawn = try Data(contentsOf: URL(fileURLWithPath: png))
        XCTAssertEqual(Array(drawn.prefix(4)), [0x89, 0x50, 0x4E, 0x47], "a PNG")
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
