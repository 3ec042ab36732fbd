import ArgumentParser
import FamilyControls
import Foundation
import GLibRuntime
@_spi(Screenward) import ManagedSettings
import ScreenwardTesting
import SessionDisplay
import X11Session

/// Plays applications for the demo, the tests and the benchmark: creates windows
/// with the WM_CLASS and properties asked for, prints their ids (one per line,
/// hexadecimal) and then follows commands on standard input until it closes:
///
///     activate <id>                   ask the window manager to activate a window
///     class <id> <instance> <class>   change WM_CLASS
///     title <id> <text…>              change the title
///     destroy <id>                    destroy a window
///     label <id> <token>              ask the Screen Time API's owner for the label of an
///                                     application token in a window, as an app
///                                     (`Label(token)`, `SCREENWARD_BUNDLE_ID`); prints
///                                     "label shown <id>" or "label refused <id>: <why>"
///
/// With `--grab-keyboard` it holds an active keyboard grab and prints "grabbed keyboard".
///     quit
@main
struct TestWindowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "screenward-testwindow",
        abstract: "Create X11 windows with chosen WM_CLASS for demos and tests.")

    @Option(help: "X display (default: $DISPLAY).")
    var display: String?

    @Option(help: "A window as instance.Class[:Title], repeatable, e.g. --window editor.Editor:\"Editor\".")
    var window: [String] = []

    @Option(name: .customLong("gtk-app-id"), help: "Set _GTK_APPLICATION_ID on every window created.")
    var gtkApplicationID: String?

    @Flag(
        name: .customLong("ignore-delete"),
        help:
            """
            Ignore WM_DELETE_WINDOW (a hung application); by default a window asked to close is destroyed, and \
            the program ends with its last window.
            """
    )
    var ignoreDelete = false

    @Flag(name: .customLong("ignore-sigterm"), help: "Ignore SIGTERM (only SIGKILL ends the program).")
    var ignoreSigterm = false

    @Flag(name: .customLong("no-pid"), help: "Do not set _NET_WM_PID.")
    var noPID = false

    @Flag(
        name: .customLong("override-redirect"),
        help: "Create override-redirect windows (unmanaged, like menus and popups).")
    var overrideRedirect = false

    @Flag(
        name: .customLong("report-keys"),
        help:
            """
            Print \"key <keycode> <window>\" and \"button <n> <window>\" for key presses and clicks the windows \
            receive, and \"focus <window>\" when one is given the focus.
            """
    )
    var reportKeys = false

    @Flag(
        name: .customLong("grab-keyboard"),
        help: "Hold an active keyboard grab (prints \"grabbed keyboard\" once it holds).")
    var grabKeyboard = false

    func run() throws {
        let connection = try XConnection(displayName: display)
        let loop = MainLoop()
        loop.attach(connection)
        let windows = DemoWindows(connection: connection)
        if reportKeys { windows.onInput = { window, input in emit("\(input) \(window)") } }
        for (index, description) in window.enumerated() {
            let spec = try parse(description)
            let id = windows.create(spec, x: Int32(40 + 30 * index), y: Int32(40 + 30 * index))
            emit("\(id)")
        }
        if grabKeyboard {
            // Retries while someone else (the window manager) holds the keyboard.
            var grab: (() -> Void)!
            grab = {
                if windows.grabKeyboard() {
                    emit("grabbed keyboard")
                } else {
                    loop.schedule(after: .milliseconds(20), grab)
                }
            }
            grab()
        }
        loop.readLines(
            from: 0,
            onLine: { line in
                if !execute(line, windows: windows, connection: connection) { loop.quit() }
            },
            onEnd: { loop.quit() })
        var open = window.count
        if !ignoreDelete {
            windows.onDeleteRequest = { window in
                windows.destroy(window)
                emit("closed \(window)")
                open -= 1
                if open == 0 { loop.quit() }
            }
        }
        // SIGTERM ends the program as it ends an application with no handler of its own,
        // so a test sees the signal in the exit status; with --ignore-sigterm it is caught and ignored.
        if ignoreSigterm { loop.onSignal(SIGTERM) {} }
        loop.onSignal(SIGINT) { loop.quit() }
        loop.run()
    }

    private func parse(_ description: String) throws -> DemoWindows.Spec {
        let (classPart, title) = description.split(separator: ":", maxSplits: 1).map(String.init).pairOrSingle
        let parts = classPart.split(separator: ".", maxSplits: 1).map(String.init)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw ValidationError("--window wants instance.Class[:Title], got \"\(description)\"")
        }
        return DemoWindows.Spec(
            instance: parts[0], className: parts[1], title: title ?? parts[1],
            gtkApplicationID: gtkApplicationID, setsPID: !noPID, overrideRedirect: overrideRedirect)
    }

    /// Returns false to stop.
    private func execute(_ line: String, windows: DemoWindows, connection: XConnection) -> Bool {
        let words = line.split(separator: " ").map(String.init)
        guard let command = words.first else { return true }
        let target =
            words.count > 1
            ? UInt(words[1].replacingOccurrences(of: "0x", with: ""), radix: 16).map(WindowID.init) : nil
        switch (command, target) {
        case ("quit", _):
            return false
        case ("activate", let window?):
            connection.requestActivation(of: window)
        case ("class", let window?) where words.count == 4:
            windows.setClass(window, instance: words[2], className: words[3])
        case ("title", let window?):
            windows.setTitle(window, words.dropFirst(2).joined(separator: " "))
        case ("destroy", let window?):
            windows.destroy(window)
        case ("label", let window?) where words.count == 3:
            // Asked off the loop: the owner draws into the window while this process waits.
            let token = ApplicationToken(opaqueValue: words[2])
            Task.detached {
                do {
                    try await Label(token).show(inWindow: window.rawValue)
                    emit("label shown \(window)")
                } catch {
                    emit("label refused \(window): \(error)")
                }
            }
        default:
            FileHandle.standardError.write(Data("screenward-testwindow: cannot understand \"\(line)\"\n".utf8))
        }
        emit("ok \(command)")
        return true
    }
}

/// Writes a line to standard output at once (a pipe would otherwise buffer it).
private func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

extension Array where Element == String {
    fileprivate var pairOrSingle: (String, String?) { (self.first ?? "", count > 1 ? self[1] : nil) }
}
