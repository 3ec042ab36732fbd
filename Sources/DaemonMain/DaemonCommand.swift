import ArgumentParser
import Foundation
import Glibc
import ScreenwardCore
import ScreenwardIPC
import SystemAccounts

public struct DaemonCommand: ParsableCommand {
    /// The descriptors it was handed made safe first (`ProgramStart`: closed standard streams
    /// opened on /dev/null, inherited descriptors fitted to the limit); then the command line.
    public static func main() {
        ProgramStart.prepare()
        // Enough descriptors that no user's connections take the last ones it needs (the
        // unit asks for LimitNOFILE=65536; each user holds at most 32 connections).
        _ = ProgramStart.raiseOpenFilesLimit()
        main(nil)
    }

    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "screenward-daemon",
        abstract: "Screenward's system daemon: owns the limits of managed users (child mode).",
        discussion: """
            Runs as root, started by the systemd unit screenward-daemon.service. Its state (who is managed, \
            each managed user's ledger and settings) lives in the state directory, readable by root alone; \
            it listens on a socket every local user may connect to, and authorizes each request by the \
            caller's credentials as the kernel reports them.
            """)

    @Option(help: "Where the daemon keeps its state (created mode 0700).")
    var stateDirectory = "/var/lib/screenward"

    @Option(help: "The socket to listen on (its directory is created mode 0755).")
    var socket = DaemonAddress.standardPath

    @Option(help: "Where the agents' X authority copies live (created mode 0755; each session's folder 0700).")
    var runtimeDirectory = "/run/screenward"

    @Option(
        help: "The session agent to start in managed users' sessions (default: screenward-agent beside this program).")
    var agent: String?

    @Option(
        help: ArgumentHelp(
            """
            The browsers' native-messaging host whose reports count for managed users \
            (default: screenward-web-host beside the agent).
            """,
            valueName: "path"))
    var webHost: String?

    @Option(help: "The system user session agents run as (never the managed user).")
    var agentUser = "screenward"

    @Option(help: "Where installed apps' manifests are (only root may write there).")
    var appsDirectory = InstalledApps.systemDirectory.path

    @Option(help: "The system user apps' extensions run as (never a managed user, never root).")
    var extensionUser = "screenward-extensions"

    @Option(help: "Where each extension gets a folder of its own, per managed user (created mode 0755, root's).")
    var extensionsDirectory = "/var/lib/screenward-extensions"

    @Option(
        name: .customLong("rule-warnings"),
        help: ArgumentHelp(
            "Seconds before a limit runs out or a downtime starts that managed users are warned, comma-separated.",
            valueName: "seconds"))
    var ruleWarnings = "300,60"

    @Option(
        help: ArgumentHelp("A managed user's session bus, for their warnings (%u: their uid).", valueName: "address"))
    var userBus = "unix:path=/run/user/%u/bus"

    @Option(help: ArgumentHelp("The group whose members are guardians (root always is one).", valueName: "group"))
    var guardianGroup = GuardianPolicy.standardGuardianGroup

    @Option(
        help: ArgumentHelp(
            "The file that names the system's time zone, which managed users' days follow (whatever their TZ).",
            valueName: "path"))
    var localtime = "/etc/localtime"

    @Option(
        help: ArgumentHelp(
            """
            The system's shared data folders, colon-separated: \
            their desktop entries name the applications managed users use (also their agents').
            """,
            valueName: "folders"))
    var dataDirectories = SharedDataDirectories.standard

    @Flag(help: "Log each request.")
    var verbose = false

    public func validate() throws {
        let leads = ruleWarnings.split(separator: ",").compactMap { TimeInterval(String($0)) }
        guard !leads.isEmpty, leads.count <= 4, leads.count == ruleWarnings.split(separator: ",").count,
            leads.allSatisfy({ $0 >= 1 && $0 < 86_400 })
        else { throw ValidationError("--rule-warnings takes up to 4 whole numbers of seconds, such as 300,60") }
    }

    public func run() throws {
        guard geteuid() == 0 else {
            throw ValidationError(
                """
                screenward-daemon must run as root (it keeps managed users' state where they cannot change it); \
                start it with `systemctl start screenward-daemon`
                """
            )
        }
        let log = DaemonLog(verbose: verbose)
        let me = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let agentExecutable =
            agent.map { URL(fileURLWithPath: $0) }
            ?? me.deletingLastPathComponent().appendingPathComponent("screenward-agent")
        let options = Daemon.Options(
            stateDirectory: URL(fileURLWithPath: stateDirectory, isDirectory: true), socketPath: socket,
            runtimeDirectory: URL(fileURLWithPath: runtimeDirectory, isDirectory: true),
            agentExecutable: agentExecutable,
            webHost: webHost.map { URL(fileURLWithPath: $0) }
                ?? agentExecutable.deletingLastPathComponent().appendingPathComponent("screenward-web-host"),
            agentUser: agentUser, appsDirectory: URL(fileURLWithPath: appsDirectory, isDirectory: true),
            extensionUser: extensionUser,
            extensionsDirectory: URL(fileURLWithPath: extensionsDirectory, isDirectory: true),
            warningLeads: ruleWarnings.split(separator: ",").compactMap { TimeInterval(String($0)) }, userBus: userBus,
            guardianGroup: guardianGroup, localtime: localtime, dataDirectories: dataDirectories)
        do {
            try Daemon(options: options, log: log).run()
        } catch {
            log.error("\(error)")
            throw ExitCode.failure
        }
    }
}
