import ArgumentParser
import CommandLineSupport
import Foundation
import GLibRuntime
import GtkBase
import ScreenwardCore
import ScreenwardIPC
import TrayUI
import X11Session

/// The program's texts (its help, its errors), in the session's language.
private let texts = Translations.session

/// `screenward-tray`: the tray icon and menu of every session (started by XDG autostart).
/// For a managed user or a person with their own rules: the time left on the icon, each
/// rule in the menu, more time. For a guardian: each managed user, and their requests.
public struct TrayCommand: ParsableCommand {
    /// The descriptors it was handed made safe first (`ProgramStart`: closed standard streams
    /// opened on /dev/null, inherited descriptors fitted to the limit); then the command line.
    public static func main() {
        ProgramStart.prepare()
        runSpeaking(texts)
    }

    public init() {}

    // swift-format-ignore
    public static let configuration = CommandConfiguration(
        commandName: "screenward-tray", abstract: texts("Show Screenward's tray icon and menu in this desktop session.", context: "help"))

    @Option(help: ArgumentHelp(texts("The X display (default: $DISPLAY).", context: "help"))) var display: String?
    // swift-format-ignore
    @Option(help: ArgumentHelp(texts("Seconds between refreshes of the figures.", context: "help"))) var refresh: UInt32 = 5

    public func validate() throws {
        guard (1...300).contains(refresh) else {
            throw ValidationError(texts("--refresh is 1 to 300 seconds", context: "cli"))
        }
    }

    public func run() throws {
        try GtkToolkit.initialize(displayName: display)
        let texts = try RuleTexts.load()
        let language = ShieldDefaults.language()
        let runtime =
            ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory
        let icons = runtime.appendingPathComponent("screenward-tray-\(getuid())", isDirectory: true)
        let source = TraySource.forThisAccount()
        let indicator = try TrayIndicator(
            id: "screenward", title: texts.text("trayTitle", language: language), iconDirectory: icons,
            initialIcon: try TrayIconPainter.paint(TrayIconPainter.Face(fractionLeft: nil, text: ""), in: icons))
        let tray = Tray(source: source, indicator: indicator, icons: icons, texts: texts, language: language)
        tray.refresh()
        let loop = MainLoop()
        loop.repeatEvery(seconds: refresh) { tray.refresh() }
        loop.onSignal(SIGTERM) { loop.quit() }
        loop.onSignal(SIGINT) { loop.quit() }
        FileHandle.standardOutput.write(Data("screenward-tray: showing \(source.description)\n".utf8))
        loop.run()
    }
}
