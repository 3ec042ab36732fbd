import Foundation
import Glibc
import ScreenwardCore

/// A real `screenward-daemon` running as root for one test or benchmark, with its state, socket and
/// runtime files in a private folder other users can traverse, and its session agents
/// running as a system user made for the test.
///
/// The programs other users run (the command line, the agent, the test window) are
/// copied into that folder with their data: the checkout may sit where only root can
/// reach it (a clone in a `mktemp -d` folder is mode 0700).
public final class DaemonRig {
    public let users = LocalUsers()
    public let work: URL
    public let agentUser: String
    /// The system user apps' extensions run as.
    public let extensionUser: String
    public private(set) var daemon: ChildProcess?

    public var socket: String { work.appendingPathComponent("run/daemon.sock").path }
    public var state: URL { work.appendingPathComponent("state") }
    public var runtime: URL { work.appendingPathComponent("run") }
    /// Where each extension gets its own folder, per managed user.
    public var extensionsData: URL { work.appendingPathComponent("extensions") }

    /// Why a rig cannot run here (not root, a tool missing), or nil when it can.
    public static func missingRequirement() -> String? {
        guard geteuid() == 0 else { return "creating users and running the system daemon needs root" }
        for program in ["/usr/sbin/useradd", "/usr/sbin/runuser", "/usr/bin/setpriv"]
        where !FileManager.default.isExecutableFile(atPath: program) {
            return "\(program) is missing (apt-get install passwd util-linux)"
        }
        return nil
    }

    /// The group whose members this daemon takes for guardians: the run's own (created by
    /// `users.add(_:groups:)` when a test first puts a guardian in it, removed after), never
    /// the machine's `screenward-guardians`, which an installed Screenward uses.
    public var guardianGroup: String { users.prefix + "guardians" }

    /// The zone this daemon takes for the system's: the tests' `TZ` when it names one
    /// (scripts/test-clocks.sh runs them in chosen zones), else the machine's.
    public let systemZone: TimeZone

    public init() throws {
        work = URL(fileURLWithPath: "/tmp/screenward-daemon-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: work, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        users.note("folder \(work.path)")
        systemZone = Self.testZone() ?? SystemTimeZone().zone()
        try FileManager.default.createSymbolicLink(
            atPath: work.appendingPathComponent("localtime").path,
            withDestinationPath: "/usr/share/zoneinfo/\(systemZone.identifier)")
        agentUser = try users.add("agent")
        extensionUser = try users.add("ext")
        try installPrograms()
    }

    private static func testZone() -> TimeZone? {
        guard let name = ProcessInfo.processInfo.environment["TZ"], !name.isEmpty else { return nil }
        return TimeZone(identifier: name.hasPrefix(":") ? String(name.dropFirst()) : name)
    }

    /// Where the copies of the programs other users run are.
    public var programs: URL { work.appendingPathComponent("bin") }

    public func program(_ name: String) -> String { programs.appendingPathComponent(name).path }

    private func installPrograms() throws {
        try ProgramCopies.install(
            [
                "screenward", "screenward-agent", "screenward-web-host", "screenward-testwindow", "homework",
                "screenward-tray", "screenward-report", "screenward-picker",
            ], in: work)
    }

    /// Where the daemon reads installed apps' manifests (root's, like /usr/share/screenward/apps).
    public var apps: URL { work.appendingPathComponent("apps") }

    /// Installs an app's manifest for every user, naming `executables` and `extensions`
    /// (point → executable and arguments).
    public func installApp(
        _ bundleIdentifier: String, name: String, executables: [String], extensions: [String: [String]] = [:]
    ) throws {
        try FileManager.default.createDirectory(
            at: apps, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        var manifest: [String: Any] = [
            "format": 1, "bundleIdentifier": bundleIdentifier, "displayName": name, "executables": executables,
        ]
        if !extensions.isEmpty {
            manifest["extensions"] = extensions.sorted { $0.key < $1.key }.map { point, command in
                ["point": point, "executable": command[0], "arguments": Array(command.dropFirst())] as [String: Any]
            }
        }
        let file = apps.appendingPathComponent("\(bundleIdentifier).json")
        try JSONSerialization.data(withJSONObject: manifest, options: [.prettyPrinted]).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
    }

    /// Desktop entries of the machine's (`debian-xterm.desktop`) the daemon is to see as
    /// installed applications, from the next start on; by default it sees none.
    public var machineApplications: [String] = []

    /// Desktop entries of the test's own (file name → contents), installed beside those.
    public var testApplications: [String: String] = [:]

    /// The daemon's shared data: the machine's without its applications, and before them a
    /// folder with the `machineApplications` copied in.
    private func dataDirectories() throws -> String {
        let machine = try MachineSharedData.withoutApplications(in: work.appendingPathComponent("shared"))
        guard !machineApplications.isEmpty || !testApplications.isEmpty else { return machine }
        let chosen = work.appendingPathComponent("chosen-share")
        let applications = chosen.appendingPathComponent("applications")
        try FileManager.default.createDirectory(
            at: applications, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        for name in machineApplications {
            let target = applications.appendingPathComponent(name)
            guard !FileManager.default.fileExists(atPath: target.path) else { continue }
            let source = MachineSharedData.folders.map { "\($0)/applications/\(name)" }.first {
                FileManager.default.fileExists(atPath: $0)
            }
            guard let source else {
                throw LocalUsersError(
                    description: "no desktop entry \(name) on this machine (is its package installed?)")
            }
            try FileManager.default.copyItem(atPath: source, toPath: target.path)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: target.path)
        }
        for (name, contents) in testApplications {
            let target = applications.appendingPathComponent(name)
            try contents.write(to: target, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: target.path)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: chosen.path)
        return chosen.path + ":" + machine
    }

    /// More options for the daemon (`--rule-warnings 4,2`), from the next start on.
    public var daemonArguments: [String] = []

    /// The daemon's command line, its program first, as `startDaemon` runs it.
    public func daemonCommand() throws -> [String] {
        [
            try ProjectPrograms.url(of: "screenward-daemon").path,
            "--state-directory", state.path, "--socket", socket, "--runtime-directory", runtime.path,
            "--agent-user", agentUser, "--agent", program("screenward-agent"), "--apps-directory", apps.path,
            "--extension-user", extensionUser, "--extensions-directory", extensionsData.path,
            "--guardian-group", guardianGroup, "--localtime", work.appendingPathComponent("localtime").path,
            "--data-directories", try dataDirectories(), "--verbose",
        ] + daemonArguments
    }

    /// Put before the daemon's command line: a household's test runs it in a computer of its
    /// own (`NetworkComputer.commandPrefix`).
    public var commandPrefix: [String] = []

    public func startDaemon(environment: [String: String] = [:]) throws {
        let command = commandPrefix + (try daemonCommand())
        let daemon = try ChildProcess(
            URL(fileURLWithPath: command[0]), Array(command.dropFirst()), environment: environment)
        self.daemon = daemon
        try daemon.waitForStandardError(containing: "listening on", timeout: 10)
    }

    public func stopDaemon() {
        guard let daemon, daemon.isRunning else { return }
        kill(daemon.pid, SIGTERM)
        _ = daemon.waitForExit(timeout: 10)
    }

    /// `screenward ARGUMENTS` as `user`, against this daemon.
    public func screenward(as user: String, _ arguments: [String], environment: [String: String] = [:]) throws -> (
        status: Int32, output: String, error: String
    ) {
        try users.run(
            as: user, [program("screenward")] + arguments,
            environment: environment.merging(["SCREENWARD_DAEMON_SOCKET": socket]) { $1 })
    }

    /// The pid of the agent the daemon runs for `session`.
    public func agentPID(session: String) -> Int32? {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = Int32(entry),
                let cmdline = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(entry)/cmdline"))
            else { continue }
            let arguments = cmdline.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            if arguments.first?.hasSuffix("screenward-agent") == true,
                let index = arguments.firstIndex(of: "--managed-session"),
                arguments.indices.contains(index + 1), arguments[index + 1] == session
            {
                return pid
            }
        }
        return nil
    }

    public func tearDown() {
        stopDaemon()
        try? FileManager.default.removeItem(at: work)
        users.removeAll()
    }
}
