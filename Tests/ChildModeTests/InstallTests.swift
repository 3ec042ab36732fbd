import Foundation
import Glibc
import SessionHarness
import TestSupport
import XCTest

/// `scripts/install.sh` as a guardian's administrator runs it (as root): it installs the
/// programs, the daemon's unit, PAM file and tmpfiles snippet, the group of guardians and
/// the agents' system user; the installed programs run; `--uninstall --purge` takes it
/// all away again. It changes the machine (files in /etc), so it runs under CI, where the
/// machine is thrown away, and elsewhere only when SCREENWARD_TEST_INSTALL=1.
final class InstallTests: XCTestCase {
    private static let systemFiles = [
        "/etc/systemd/system/screenward-daemon.service", "/etc/pam.d/screenward", "/usr/lib/tmpfiles.d/screenward.conf",
        "/etc/sysctl.d/60-screenward.conf", "/etc/xdg/autostart/screenward-tray.desktop",
    ]

    func testInstallRunsAndUninstallRemovesEverything() throws {
        guard geteuid() == 0 else { try cannotRun("installing needs root") }
        guard runningInCI || ProcessInfo.processInfo.environment["SCREENWARD_TEST_INSTALL"] == "1" else {
            throw XCTSkip("installs into /etc: runs under CI, or with SCREENWARD_TEST_INSTALL=1")
        }
        if let existing = Self.systemFiles.first(where: { FileManager.default.fileExists(atPath: $0) }) {
            try cannotRun("Screenward is installed on this machine (\(existing)): the test would remove it")
        }
        let hadGroup = LocalUsers.groupExists("screenward-guardians")
        let binaries = try ProjectPrograms.url(of: "screenward-daemon").deletingLastPathComponent()
        let repository = try Self.repository(above: binaries)
        let work = URL(fileURLWithPath: "/tmp/screenward-install-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        let prefix = work.appendingPathComponent("usr").path
        let script = repository.appendingPathComponent("scripts/install.sh").path

        let installed = try LocalUsers.capture(script, ["--binaries", binaries.path, "--prefix", prefix])
        XCTAssertEqual(installed.status, 0, installed.error)
        for program in ["screenward", "screenward-agent", "screenward-daemon", "screenward-tray"] {
            XCTAssertTrue(FileManager.default.isExecutableFile(atPath: "\(prefix)/bin/\(program)"), program)
        }
        for file in Self.systemFiles + [
            "\(prefix)/share/screenward/categories.json", "\(prefix)/share/doc/screenward/architecture.md", "/usr/share/screenward/apps",
        ] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: file), file)
        }
        let unit = try String(contentsOfFile: Self.systemFiles[0], encoding: .utf8)
        XCTAssertTrue(unit.contains("ExecStart=\(prefix)/bin/screenward-daemon"), unit)
        let autostart = try String(contentsOfFile: "/etc/xdg/autostart/screenward-tray.desktop", encoding: .utf8)
        XCTAssertTrue(autostart.contains("Exec=\(prefix)/bin/screenward-tray"), autostart)
        XCTAssertTrue(FileManager.default.fileExists(atPath: "\(prefix)/share/screenward/rules.json"))
        XCTAssertTrue(LocalUsers.groupExists("screenward-guardians"))
        let agentUser = try LocalUsers.capture("/usr/bin/getent", ["passwd", "screenward"])
        XCTAssertEqual(agentUser.status, 0)
        XCTAssertTrue(agentUser.output.hasSuffix(":/usr/sbin/nologin\n"), "the agents' account has no login: \(agentUser.output)")
        let extensionUser = try LocalUsers.capture("/usr/bin/getent", ["passwd", "screenward-extensions"])
        XCTAssertTrue(extensionUser.output.hasSuffix(":/usr/sbin/nologin\n"), "the extensions' account has no login: \(extensionUser.output)")

        // The installed daemon and command line work together.
        let socket = work.appendingPathComponent("run/daemon.sock").path
        let daemon = try ChildProcess(
            URL(fileURLWithPath: "\(prefix)/bin/screenward-daemon"), ["--state-directory", work.appendingPathComponent("state").path, "--socket", socket])
        try daemon.waitForStandardError(containing: "listening on")
        let listed = try LocalUsers.capture("/usr/bin/env", ["SCREENWARD_DAEMON_SOCKET=\(socket)", "\(prefix)/bin/screenward", "child", "list"])
        XCTAssertEqual(listed.status, 0, listed.error)
        XCTAssertTrue(listed.output.contains("No managed users"), listed.output)
        kill(daemon.pid, SIGTERM)
        XCTAssertEqual(daemon.waitForExit(timeout: 5), 0)

        let removed = try LocalUsers.capture(script, ["--uninstall", "--prefix", prefix] + (hadGroup ? [] : ["--purge"]))
        XCTAssertEqual(removed.status, 0, removed.error)
        for file in Self.systemFiles + ["\(prefix)/bin/screenward-daemon", "\(prefix)/share/screenward"] {
            XCTAssertFalse(FileManager.default.fileExists(atPath: file), "\(file) is left after --uninstall")
        }
        if !hadGroup {
            XCTAssertFalse(LocalUsers.groupExists("screenward-guardians"), "--purge removes the group")
            XCTAssertNotEqual(try LocalUsers.capture("/usr/bin/getent", ["passwd", "screenward"]).status, 0, "--purge removes the user")
            XCTAssertNotEqual(try LocalUsers.capture("/usr/bin/getent", ["passwd", "screenward-extensions"]).status, 0, "--purge removes the user")
            XCTAssertFalse(FileManager.default.fileExists(atPath: "/var/lib/screenward-extensions"), "--purge removes the extensions' folders")
        }
    }

    /// The checkout the test programs were built in.
    private static func repository(above directory: URL) throws -> URL {
        var candidate = directory
        while candidate.path != "/" {
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("scripts/install.sh").path) { return candidate }
            candidate.deleteLastPathComponent()
        }
        throw LocalUsersError(description: "no scripts/install.sh above \(directory.path)")
    }
}
