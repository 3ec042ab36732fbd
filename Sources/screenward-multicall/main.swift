import CommandLineMain
import DaemonMain
import PickerMain
import ReportMain
import TrayMain
import WebHostMain

// Screenward's programs but the agent in one executable, as the Debian package installs them:
// /usr/bin/screenward, with each other program's name a link to it. The name it was started
// by says which program runs; any other name runs the command line. Choosing a name gives
// nobody more than running that program's link would: each is Screenward's own code.
let name = CommandLine.arguments.first?.split(separator: "/").last.map(String.init) ?? "screenward"
switch name {
case "screenward-daemon": DaemonCommand.main()
case "screenward-tray": TrayCommand.main()
case "screenward-report": ReportCommand.main()
case "screenward-picker": PickerCommand.main()
case "screenward-web-host": WebHostCommand.main()
default: ScreenwardCommand.main()
}
