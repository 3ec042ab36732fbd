import ArgumentParser
import Foundation
import Glibc
import ScreenwardIPC

@main
struct DaemonCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
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

    @Flag(help: "Log each request.")
    var verbose = false

    func run() throws {
        guard geteuid() == 0 else {
            throw ValidationError("screenward-daemon must run as root (it keeps managed users' state where they cannot change it); start it with `systemctl start screenward-daemon`")
        }
        let daemon = try Daemon(
            stateDirectory: URL(fileURLWithPath: stateDirectory, isDirectory: true), socketPath: socket,
            log: DaemonLog(verbose: verbose))
        daemon.run()
    }
}
