import ArgumentParser
import Foundation
import ScreenwardCore
import ScreenwardIPC

/// `screenward-web-host`: the browsers start it for Screenward's extension (native messaging;
/// its manifests are installed by `screenward browsers install`). It reads the extension's
/// messages on its standard input and passes each report of the browser's windows to the
/// state owner: the person's agent, or the system daemon in an account a guardian manages.
/// What it logs goes to its standard error, which the browser keeps in its own log.
public struct WebHostCommand: ParsableCommand {
    /// The descriptors it was handed made safe first (`ProgramStart`: closed standard streams
    /// opened on /dev/null, inherited descriptors fitted to the limit); then the command line.
    public static func main() {
        ProgramStart.prepare()
        main(nil)
    }

    public static let configuration = CommandConfiguration(
        commandName: "screenward-web-host",
        abstract: "Relay Screenward's browser extension's reports of the open tabs to the state owner.",
        discussion: """
            A browser starts it through native messaging: Chromium passes the extension's origin \
            (chrome-extension://ID/), Firefox the manifest's path and the extension's ID. People \
            do not run it themselves; `screenward browsers install` sets the browsers up.
            """)

    @Argument(
        parsing: .allUnrecognized,
        help: "What the browser passes: the extension's origin, or the manifest's path and the extension's ID.")
    var browserArguments: [String] = []

    public init() {}

    public func run() {
        WebHostRelay(arguments: browserArguments, browserPID: getppid()).run()
    }
}
