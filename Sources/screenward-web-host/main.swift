import Foundation
import ScreenwardCore
import ScreenwardIPC

// screenward-web-host: the browsers start it for Screenward's extension (native messaging;
// its manifests are installed by `screenward browsers install`). It reads the extension's
// messages on its standard input and passes each report of the browser's windows to the
// state owner: the person's agent, or the system daemon in an account a guardian manages.
// What it logs goes to its standard error, which the browser keeps in its own log.

ProgramStart.prepare()
let relay = WebHostRelay(arguments: Array(CommandLine.arguments.dropFirst()), browserPID: getppid())
relay.run()
