import ArgumentParser
import Foundation
import GLibRuntime
import GtkBase
import ManagedSettingsUI
import ScreenwardCore
import ScreenwardTesting
import ShieldUI
import X11Session

/// Shows one shield, for screenshots, the tests and trying looks, as the agent does: without
/// the desktop's GTK theme unless asked (`--desktop-theme`). Prints `theme own` or `theme
/// desktop` (which styles the window, as GTK says), then `shown 0x<id>` once the shield is
/// on the screen and `action <name>` for each button press, and
/// follows commands on standard input until it ends (or SIGTERM):
///
///     redraw <configuration JSON>   the same shield with a new configuration
///     cover WxH+X+Y                 move and resize the shield
///     quit
@main
struct ShieldViewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "screenward-shieldview",
        abstract: "Show a shield window over a window or a region of the screen.")

    @Option(help: "X display (default: $DISPLAY).")
    var display: String?

    @Option(
        name: .customLong("configuration"), help: "A ShieldConfiguration as JSON (nil fields take the default look).")
    var configurationFile: String?

    @Option(name: .customLong("app-name"), help: "The shielded application's name, as the texts show it.")
    var appName = "Example"

    @Option(name: .customLong("category-name"), help: "Shield the application because of this category.")
    var categoryName: String?

    @Option(help: "The language of the default texts (en, ko, vi; default: from the locale).")
    var language: String?

    @Option(help: "Cover this X window (hexadecimal id, as xwininfo prints it).")
    var over: String?

    @Option(help: "Cover this region of the screen, as WxH+X+Y.")
    var frame: String?

    @Flag(help: "Style the window with the desktop's GTK theme too (the agent loads it only for its dialogs).")
    var desktopTheme = false

    @Flag(
        name: .customLong("guardian-dialog"),
        help: "Show the guardian's dialog (a child asking for 15 more minutes) instead of a shield; print its texts.")
    var guardianDialog = false

    @Option(
        name: .customLong("wayland-overlay"),
        help: "Show the shield as the overlay over everything on this Wayland display (a wlroots compositor's).")
    var waylandOverlay: String?

    func validate() throws {
        guard !guardianDialog, waylandOverlay == nil else { return }
        guard (over == nil) != (frame == nil) else {
            throw ValidationError("give exactly one of --over WINDOWID and --frame WxH+X+Y")
        }
        if let frame, ScreenRect(geometry: frame) == nil {
            throw ValidationError("--frame wants WxH+X+Y, e.g. 800x600+100+50; got \"\(frame)\"")
        }
        if let over, windowID(over) == nil {
            throw ValidationError("--over wants a window id such as 0x1a00007; got \"\(over)\"")
        }
    }

    func run() throws {
        if guardianDialog { return try showGuardianDialog() }
        let defaults = try ShieldDefaults.load()
        let subject = ShieldSubject(name: appName, categoryName: categoryName)
        let language = language ?? ShieldDefaults.language()
        let configuration =
            try configurationFile.map { path in
                try ConfigurationReader.decode(try Data(contentsOf: URL(fileURLWithPath: path)), source: path)
            } ?? ShieldConfiguration()

        if let waylandOverlay {
            return try showOverlay(
                defaults.resolve(configuration, for: subject, language: language), on: waylandOverlay)
        }
        GtkToolkit.deferDesktopTheme()
        try GtkToolkit.initialize(displayName: display)
        if desktopTheme { GtkToolkit.useDesktopTheme() }
        emit(GtkToolkit.desktopThemeInEffect ? "theme desktop" : "theme own")
        let target: ScreenRect
        if let over, let id = windowID(over) {
            guard let found = ShieldScreen.frame(ofWindow: id) else {
                throw ValidationError("there is no window \(over)")
            }
            target = found
        } else {
            target = ScreenRect(geometry: frame ?? "")!
        }

        let loop = MainLoop()
        let window = ShieldWindow { action in emit("action \(action.rawValue)") }
        window.onShown = { [unowned window] in
            window.requestActivation()
            emit("shown 0x" + String(window.windowID, radix: 16))
            // Each text it shows, for the tests that check every one went through the translations.
            for text in window.visibleTexts { emit("text " + text.replacingOccurrences(of: "\n", with: " ")) }
            emit("texts end")
        }
        window.show(defaults.resolve(configuration, for: subject, language: language), covering: target)

        loop.readLines(
            from: 0,
            onLine: { line in
                let (command, argument) = split(line)
                switch command {
                case "quit":
                    loop.quit()
                case "redraw":
                    do {
                        let new = try ConfigurationReader.decode(Data(argument.utf8), source: "the redraw command")
                        window.redraw(defaults.resolve(new, for: subject, language: language))
                        emit("ok redraw")
                    } catch {
                        warn("\(error)")
                    }
                case "cover":
                    if let frame = ScreenRect(geometry: argument) {
                        window.cover(frame)
                        emit("ok cover")
                    } else {
                        warn("cover wants WxH+X+Y, got \"\(argument)\"")
                    }
                case "":
                    break
                default:
                    warn("cannot understand \"\(line)\" (commands: redraw <configuration JSON>, cover WxH+X+Y, quit)")
                }
            },
            onEnd: { loop.quit() })
        loop.onSignal(SIGTERM) { loop.quit() }
        loop.onSignal(SIGINT) { loop.quit() }
        loop.run()
        window.destroy()
    }

    /// `shield` as the overlay the agent draws on a wlroots compositor (the layer shell's
    /// overlay layer, with the keyboard), "shown overlay" once drawn; then until `quit` or the
    /// end of standard input. The tests map it over the agent's shield, as a child's client could.
    private func showOverlay(_ shield: ResolvedShield, on waylandDisplay: String) throws {
        try GtkToolkit.initialize(waylandDisplay: waylandDisplay)
        guard OverlayShieldWindow.isSupported else {
            throw ValidationError("\(waylandDisplay) offers no layer shell (wlroots compositors and KWin do)")
        }
        let loop = MainLoop()
        let overlay = OverlayShieldWindow { action in emit("action \(action.rawValue)") }
        overlay.onShown = { emit("shown overlay") }
        overlay.show(shield)
        loop.readLines(from: 0, onLine: { line in if line == "quit" { loop.quit() } }, onEnd: { loop.quit() })
        loop.onSignal(SIGTERM) { loop.quit() }
        loop.run()
        overlay.hide()
    }

    /// The guardian's dialog as the agent shows it in a child's session, in `--language`: its
    /// texts printed (`text …`), then it waits for `quit` or the end of standard input.
    private func showGuardianDialog() throws {
        let language = language ?? ShieldDefaults.language()
        GtkToolkit.deferDesktopTheme()
        try GtkToolkit.initialize(displayName: display)
        var ask = GuardianAsk(
            id: 1, purpose: .rules, appName: "Screenward", bundleIdentifier: "org.screenward.rules",
            child: appName, guardians: ["mum", "dad"])
        ask.guardianAction = .add15Minutes
        let loop = MainLoop()
        let dialog = GuardianDialog(
            question: ask.question(in: .forLanguage(language)), guardians: ask.guardians,
            texts: .forLanguage(language), onAnswer: { guardian, _ in emit("answer \(guardian)") },
            onCancel: { emit("cancelled") })
        emit("dialog")
        for text in dialog.visibleTexts { emit("text " + text.replacingOccurrences(of: "\n", with: " ")) }
        emit("texts end")
        loop.readLines(from: 0, onLine: { line in if line == "quit" { loop.quit() } }, onEnd: { loop.quit() })
        loop.onSignal(SIGTERM) { loop.quit() }
        loop.run()
        dialog.close()
    }

    private func windowID(_ text: String) -> UInt? {
        let digits = text.lowercased().hasPrefix("0x") ? String(text.dropFirst(2)) : text
        return UInt(digits, radix: 16)
    }

    private func split(_ line: String) -> (String, String) {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard let space = trimmed.firstIndex(of: " ") else { return (trimmed, "") }
        return (String(trimmed[..<space]), String(trimmed[trimmed.index(after: space)...]))
    }
}

/// Writes a line to standard output at once (a pipe would otherwise buffer it).
private func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

private func warn(_ line: String) {
    FileHandle.standardError.write(Data(("screenward-shieldview: " + line + "\n").utf8))
}

extension ScreenRect {
    /// `WxH+X+Y` (X and Y may be negative: `WxH-10+20`), as X geometry strings.
    init?(geometry: String) {
        let sizeAndRest = geometry.split(separator: "x", maxSplits: 1)
        guard sizeAndRest.count == 2, let width = Int(sizeAndRest[0]), width > 0 else { return nil }
        let rest = sizeAndRest[1]
        guard let signIndex = rest.firstIndex(where: { $0 == "+" || $0 == "-" }), let height = Int(rest[..<signIndex]),
            height > 0
        else {
            return nil
        }
        let position = rest[signIndex...]
        guard let secondSign = position.dropFirst().firstIndex(where: { $0 == "+" || $0 == "-" }),
            let x = Int(position[..<secondSign].replacingOccurrences(of: "+", with: "")),
            let y = Int(position[secondSign...].replacingOccurrences(of: "+", with: ""))
        else { return nil }
        self.init(x: x, y: y, width: width, height: height)
    }
}
