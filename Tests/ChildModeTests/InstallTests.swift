import Foundation
import Glibc
import SessionHarness
import TestSupport
import XCTest

/// `scripts/install.sh` as a guardian's administrator runs it (as root), into a system image
/// of the test's own (`--root`: a folder seeded with copies of this machine's account files):
/// it installs the programs, the daemon's unit, PAM file, tmpfiles and sysctl snippets and the
/// tray's autostart entry, creates the group of guardians and the agents' and extensions'
/// system users in that image; the installed programs run; `--uninstall --purge` takes it all
/// away again. Nothing of the machine's changes, so it runs anywhere as root, beside an
/// installed Screenward too, and two runs at once never meet.
final class InstallTests: XCTestCase {
    private static let systemFiles = [
        "/etc/systemd/system/screenward-daemon.service", "/etc/pam.d/screenward", "/usr/lib/tmpfiles.d/screenward.conf",
        "/etc/sysctl.d/60-screenward.conf", "/etc/xdg/autostart/screenward-tray.desktop",
    ]
    private static let accountFiles = ["passwd", "group", "shadow", "gshadow", "login.defs"]

    func testInstallRunsAndUninstallRemovesEverything() throws {
        guard geteuid() == 0 else { try cannotRun("installing needs root (the installed files are root's)") }
        let binaries = try ProjectPrograms.url(of: "screenward-daemon").deletingLastPathComponent()
        let repository = try Self.repository(above: binaries)
        let work = URL(fileURLWithPath: "/tmp/screenward-install-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        let root = work.appendingPathComponent("root")
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("etc"), withIntermediateDirectories: true)
        for file in Self.accountFiles {
            try FileManager.default.copyItem(
                atPath: "/etc/\(file)", toPath: root.appendingPathComponent("etc/\(file)").path)
        }
        let machineAccounts = try Self.accounts(in: URL(fileURLWithPath: "/"))
        func inRoot(_ path: String) -> String { root.path + path }
        let prefix = "/usr/local"
        let script = repository.appendingPathComponent("scripts/install.sh").path

        let installed = try LocalUsers.capture(script, ["--binaries", binaries.path, "--root", root.path])
        XCTAssertEqual(installed.status, 0, installed.error)
        for program in [
            "screenward", "screenward-agent", "screenward-daemon", "screenward-tray", "screenward-report",
            "screenward-picker", "screenward-web-host",
        ] {
            XCTAssertTrue(FileManager.default.isExecutableFile(atPath: inRoot("\(prefix)/bin/\(program)")), program)
        }
        for file in Self.systemFiles + [
            "\(prefix)/share/screenward/categories.json", "\(prefix)/share/screenward/rules.json",
            "\(prefix)/share/doc/screenward/architecture.md",
            "/usr/share/screenward/apps", "/var/lib/screenward",
        ] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: inRoot(file)), file)
        }
        // The browsers' extension, force-installed by their policies.
        let browserFiles = [
            "/etc/chromium/policies/managed/screenward.json",
            "/etc/chromium/native-messaging-hosts/org.screenward.web.json",
            "/etc/firefox/policies/policies.json", "/usr/lib/mozilla/native-messaging-hosts/org.screenward.web.json",
            "\(prefix)/share/screenward/web/screenward.crx", "\(prefix)/share/screenward/web/screenward.xpi",
        ]
        for file in browserFiles { XCTAssertTrue(FileManager.default.fileExists(atPath: inRoot(file)), file) }
        let shellExtension = "\(prefix)/share/gnome-shell/extensions/screenward@screenward.org/extension.js"
        XCTAssertTrue(FileManager.default.fileExists(atPath: inRoot(shellExtension)), shellExtension)
        let hostManifest = try String(contentsOfFile: inRoot(browserFiles[1]), encoding: .utf8)
        XCTAssertTrue(hostManifest.contains("\"path\" : \"\(prefix)/bin/screenward-web-host\""), hostManifest)
        // The image's files name the paths the installed system will see, not the image's folder.
        let unit = try String(contentsOfFile: inRoot(Self.systemFiles[0]), encoding: .utf8)
        XCTAssertTrue(unit.contains("ExecStart=\(prefix)/bin/screenward-daemon"), unit)
        let autostart = try String(
            contentsOfFile: inRoot("/etc/xdg/autostart/screenward-tray.desktop"), encoding: .utf8)
        XCTAssertTrue(autostart.contains("Exec=\(prefix)/bin/screenward-tray"), autostart)
        XCTAssertFalse(unit.contains(root.path) || autostart.contains(root.path) || hostManifest.contains(root.path))
        let accounts = try Self.accounts(in: root)
        XCTAssertNotNil(accounts.groups["screenward-guardians"], "the guardians' group")
        XCTAssertEqual(
            accounts.users["screenward"]?.hasSuffix(":/usr/sbin/nologin"), true,
            "the agents' account has no login: \(accounts.users["screenward"] ?? "none")")
        XCTAssertEqual(
            accounts.users["screenward-extensions"]?.hasSuffix(":/usr/sbin/nologin"), true,
            "the extensions' account has no login")
        XCTAssertEqual(
            try Self.accounts(in: URL(fileURLWithPath: "/")), machineAccounts,
            "the machine's own accounts are untouched")

        // The installed daemon and command line work together (as users of this machine: the
        // image's accounts are not the running system's).
        let users = LocalUsers()
        defer { users.removeAll() }
        let agentUser = try users.add("agent")
        let socket = work.appendingPathComponent("run/daemon.sock").path
        let daemon = try ChildProcess(
            URL(fileURLWithPath: inRoot("\(prefix)/bin/screenward-daemon")),
            [
                "--state-directory", work.appendingPathComponent("state").path, "--socket", socket,
                "--runtime-directory",
                work.appendingPathComponent("run").path, "--agent-user", agentUser, "--extension-user", agentUser,
                "--extensions-directory", work.appendingPathComponent("extensions").path,
            ])
        defer { daemon.stop() }
        try daemon.waitForStandardError(containing: "listening on")
        let listed = try LocalUsers.capture(
            "/usr/bin/env", ["SCREENWARD_DAEMON_SOCKET=\(socket)", inRoot("\(prefix)/bin/screenward"), "child", "list"])
        XCTAssertEqual(listed.status, 0, listed.error)
        XCTAssertTrue(listed.output.contains("No managed users"), listed.output)
        kill(daemon.pid, SIGTERM)
        XCTAssertEqual(daemon.waitForExit(timeout: 5), 0)

        let removed = try LocalUsers.capture(script, ["--uninstall", "--purge", "--root", root.path])
        XCTAssertEqual(removed.status, 0, removed.error)
        for file in Self.systemFiles + browserFiles + [
            "\(prefix)/bin/screenward-daemon", "\(prefix)/share/screenward", "/var/lib/screenward", shellExtension,
            "/usr/share/screenward",
        ] {
            XCTAssertFalse(
                FileManager.default.fileExists(atPath: inRoot(file)), "\(file) is left after --uninstall --purge")
        }
        let purged = try Self.accounts(in: root)
        XCTAssertNil(purged.groups["screenward-guardians"], "--purge removes the group")
        XCTAssertNil(purged.users["screenward"], "--purge removes the agents' user")
        XCTAssertNil(purged.users["screenward-extensions"], "--purge removes the extensions' user")
        XCTAssertEqual(
            try Self.accounts(in: URL(fileURLWithPath: "/")), machineAccounts,
            "the machine's own accounts are untouched")
    }

    /// The users and groups of the system in `root`: each name with its whole line.
    private static func accounts(in root: URL) throws -> Accounts {
        func read(_ file: String) throws -> [String: String] {
            let text = try String(contentsOf: root.appendingPathComponent("etc/\(file)"), encoding: .utf8)
            var entries: [String: String] = [:]
            for line in text.split(separator: "\n") {
                if let name = line.split(separator: ":").first { entries[String(name)] = String(line) }
            }
            return entries
        }
        // Only Screenward's names: other users come and go on a machine while the test runs.
        let ours: Set<String> = ["screenward", "screenward-extensions", "screenward-guardians"]
        return Accounts(
            users: try read("passwd").filter { ours.contains($0.key) },
            groups: try read("group").filter { ours.contains($0.key) })
    }

    private struct Accounts: Equatable {
        var users: [String: String]
        var groups: [String: String]
    }

    /// The checkout the test programs were built in.
    private static func repository(above directory: URL) throws -> URL {
        var candidate = directory
        while candidate.path != "/" {
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("scripts/install.sh").path) {
                return candidate
            }
            candidate.deleteLastPathComponent()
        }
        throw LocalUsersError(description: "no scripts/install.sh above \(directory.path)")
    }
}

/// A run killed in the middle leaves its users, groups and folders behind; the next run's first
/// rig removes them, and never what a run still running holds.
final class TestLeftoversTests: XCTestCase {
    func testWhatARunNoLongerRunningLeftIsRemovedAndALiveRunsIsKept() throws {
        try DaemonFixture.requireRoot()
        // Another run's, still running (this process), made first: its sweep is done by then.
        let live = LocalUsers()
        defer { live.removeAll() }
        live.note("folder /tmp/screenward-still-in-use")
        let ended = try ChildProcess(URL(fileURLWithPath: "/bin/true"), [])
        XCTAssertEqual(ended.waitForExit(timeout: 10), 0)
        let prefix = "swtgone" + String(UInt32.random(in: 0...0xFFFF), radix: 36)
        let folder = "/tmp/screenward-leftover-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        XCTAssertEqual(
            try LocalUsers.capture("/usr/sbin/useradd", ["--create-home", "--user-group", prefix + "kid"]).status, 0)
        try FileManager.default.createDirectory(at: TestLeftovers.folder, withIntermediateDirectories: true)
        let record = TestLeftovers.folder.appendingPathComponent(prefix)
        try Data("\(ended.pid) 12345\nfolder \(folder)\nuser \(prefix)kid\n".utf8).write(to: record)

        let removed = TestLeftovers.removeWhatEndedRunsLeft()
        XCTAssertEqual(Set(removed), ["folder \(folder)", "user \(prefix)kid"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder))
        XCTAssertNotEqual(
            try LocalUsers.capture("/usr/bin/getent", ["passwd", prefix + "kid"]).status, 0, "the user is gone")
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/home/\(prefix)kid"), "with their home")
        XCTAssertFalse(FileManager.default.fileExists(atPath: record.path))
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: TestLeftovers.folder.appendingPathComponent(live.prefix).path),
            "a live run's record stays")
    }
}
