import ArgumentParser
import Foundation
import ScreenwardCore
import ScreenwardIPC
import X11Session

public struct AgentCommand: ParsableCommand {
    /// The descriptors it was handed made safe first (`ProgramStart`: closed standard streams
    /// opened on /dev/null, inherited descriptors fitted to the limit); then the command line.
    public static func main() {
        ProgramStart.prepare()
        main(nil)
    }

    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "screenward-agent",
        abstract: "Track which application has the focus in this session and keep the usage ledger.",
        discussion: """
            Runs in the foreground until SIGTERM or SIGINT, or until the session ends. In a Wayland \
            session ($WAYLAND_DISPLAY set) it follows the compositor, else the X display. \
            The ledger lives in $SCREENWARD_HOME (default $XDG_DATA_HOME/screenward).
            """)

    @Option(help: "The X display to watch (default: $DISPLAY, unless $WAYLAND_DISPLAY is set).")
    var display: String?

    @Option(
        name: .customLong("wayland-display"),
        help: "The Wayland display to watch, a wlroots compositor's such as sway's (default: $WAYLAND_DISPLAY).")
    var waylandDisplay: String?

    @Option(name: .customLong("idle-threshold"), help: "Seconds without input after which the person counts as away.")
    var idleThreshold: Double = 120

    @Flag(help: "Log every focus change.")
    var verbose = false

    @Option(
        name: .customLong("managed-session"),
        help: ArgumentHelp(
            "Run as a managed user's session agent for this logind session (started by screenward-daemon).",
            visibility: .hidden))
    var managedSession: String?

    @Option(
        name: .customLong("daemon-socket"),
        help: ArgumentHelp("The daemon's socket, with --managed-session.", visibility: .hidden))
    var daemonSocket = DaemonAddress.standardPath

    @Option(
        name: .customLong("data-directories"),
        help: ArgumentHelp(
            "The system's shared data folders, with --managed-session (the daemon's).", visibility: .hidden))
    var dataDirectories = SharedDataDirectories.standard

    @Option(
        name: .customLong("compositor-pid"),
        help: ArgumentHelp(
            "The process of the Wayland compositor the daemon found, with --managed-session and --wayland-display.",
            visibility: .hidden))
    var compositorPID: Int32?

    @Option(
        name: .customLong("rule-warnings"),
        help: ArgumentHelp(
            "Seconds before a limit runs out or a downtime starts that warnings come, comma-separated.",
            valueName: "seconds"))
    var ruleWarnings = "300,60"

    var warningLeads: [TimeInterval] { ruleWarnings.split(separator: ",").compactMap { TimeInterval(String($0)) } }

    public func validate() throws {
        guard !warningLeads.isEmpty, warningLeads.count <= 4, warningLeads.allSatisfy({ $0 >= 1 && $0 < 86_400 }),
            warningLeads.count == ruleWarnings.split(separator: ",").count
        else { throw ValidationError("--rule-warnings takes up to 4 whole numbers of seconds, such as 300,60") }
        guard idleThreshold >= 1, idleThreshold <= 86_400 else {
            throw ValidationError("--idle-threshold must be between 1 and 86400 seconds")
        }
    }

    public func run() throws {
        let log = AgentLog(verbose: verbose)
        if let managedSession {
            do {
                try ManagedAgent(
                    session: managedSession, daemonSocket: daemonSocket, dataDirectories: dataDirectories,
                    display: waylandDisplay.map { .wayland($0) } ?? .x11(display), compositorPID: compositorPID,
                    log: log
                ).run()
            } catch let error as X11Error {
                log.error("\(error)")
                guard case .cannotOpenDisplay = error else { throw ExitCode.failure }
                throw ExitCode(AgentLinkMethods.displayRefusedStatus)
            } catch {
                log.error("\(error)")
                throw ExitCode.failure
            }
            return
        }
        do {
            let choice = AgentDisplay.Choice.from(
                x11: display, wayland: waylandDisplay, environment: ProcessInfo.processInfo.environment)
            let agent = try Agent(
                display: choice, idleThreshold: .milliseconds(Int64(idleThreshold * 1000)),
                warningLeads: warningLeads, log: log)
            try agent.run()
        } catch {
            log.error("\(error)")
            throw ExitCode.failure
        }
    }
}
