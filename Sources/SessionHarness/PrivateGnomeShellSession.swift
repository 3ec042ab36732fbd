import Foundation

/// A private GNOME Shell, run headless (`--headless --virtual-monitor`) as an unprivileged account
/// with a session bus of its own (`dbus-run-session`) and a private system bus (the Shell will not
/// start without one), with Screenward's extension installed as the system installs it (a folder
/// of `XDG_DATA_DIRS`) and enabled, or not, in the account's settings (real dconf).
public final class PrivateGnomeShellSession: AccountSession {
    public let user: String
    public let runtimeDirectory: URL
    public let display = "wayland-swg"
    /// The session bus the Shell is on (`DBUS_SESSION_BUS_ADDRESS`).
    public let busAddress: String
    private let systemBus: PrivateDBus
    private let shell: ChildProcess

    /// Whether GNOME Shell and what runs it are installed.
    public static func canStart() -> Bool {
        ["gnome-shell", "dbus-run-session", "dbus-daemon", "gsettings", "gdbus", "runuser"].allSatisfy {
            PrivateXSession.which($0) != nil
        }
    }

    /// Starts GNOME Shell as `user`, its runtime folder in `work`; `extensionEnabled`: whether the
    /// account's settings enable Screenward's extension. The Shell lets no client take a picture
    /// unless it runs in its unsafe mode: an extension of the test's turns that on.
    public init(user: String, in work: URL, extensionEnabled: Bool = true) throws {
        guard let gnomeShell = PrivateXSession.which("gnome-shell") else {
            throw HarnessError.missingProgram("gnome-shell is not installed (Debian: apt-get install gnome-shell)")
        }
        self.user = user
        let manager = FileManager.default
        runtimeDirectory = work.appendingPathComponent("runtime-\(user)")
        try manager.createDirectory(at: runtimeDirectory, withIntermediateDirectories: true)
        try LocalUsers.capture("/usr/bin/chown", [user, runtimeDirectory.path])
        try manager.setAttributes([.posixPermissions: 0o700], ofItemAtPath: runtimeDirectory.path)
        // The extension where the system's extensions are: a folder of XDG_DATA_DIRS.
        let uuid = "screenward@screenward.org"
        let data = work.appendingPathComponent("gnome-data")
        let extensions = data.appendingPathComponent("gnome-shell/extensions")
        try manager.createDirectory(at: extensions, withIntermediateDirectories: true)
        try manager.copyItem(
            at: try ProgramCopies.projectData("gnome-shell/\(uuid)"), to: extensions.appendingPathComponent(uuid))
        let pictures = extensions.appendingPathComponent(Self.picturesUUID)
        try manager.createDirectory(at: pictures, withIntermediateDirectories: true)
        try """
        {"uuid": "\(Self.picturesUUID)", "name": "Pictures for Screenward's tests", "description": "unsafe mode",
         "shell-version": ["43", "44"]}
        """.write(to: pictures.appendingPathComponent("metadata.json"), atomically: true, encoding: .utf8)
        try """
        function init() {
            return { enable() { global.context.unsafe_mode = true; }, disable() {} };
        }
        """.write(to: pictures.appendingPathComponent("extension.js"), atomically: true, encoding: .utf8)
        try LocalUsers.capture("/usr/bin/chmod", ["-R", "a+rX", work.path])
        systemBus = try PrivateDBus()
        let socket = String(systemBus.address.dropFirst("unix:path=".count).prefix { $0 != "," })
        try LocalUsers.capture("/usr/bin/chmod", ["0777", socket])
        let script = work.appendingPathComponent("gnome-session.sh")
        let enabled = ([Self.picturesUUID] + (extensionEnabled ? [uuid] : [])).map { "'\($0)'" }
        try """
        #!/bin/sh
        gsettings set org.gnome.shell disable-user-extensions false
        gsettings set org.gnome.shell enabled-extensions "[\(enabled.joined(separator: ", "))]"
        exec \(gnomeShell.path) --headless --wayland --no-x11 --virtual-monitor 1280x720 --wayland-display \(display)

        """.write(to: script, atomically: true, encoding: .utf8)
        try manager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        shell = try ChildProcess(
            URL(fileURLWithPath: "/usr/sbin/runuser"),
            [
                "-u", user, "--", "/usr/bin/env", "-i", "HOME=/home/\(user)", "PATH=/usr/bin:/bin", "USER=\(user)",
                "LOGNAME=\(user)", "XDG_RUNTIME_DIR=\(runtimeDirectory.path)", "XDG_SESSION_TYPE=wayland",
                "XDG_CURRENT_DESKTOP=GNOME", "XDG_DATA_DIRS=\(data.path):/usr/local/share:/usr/share",
                "DBUS_SYSTEM_BUS_ADDRESS=\(systemBus.address)", "/usr/bin/dbus-run-session", "--", script.path,
            ])
        var address: String?
        let deadline = Date().addingTimeInterval(40)
        while address == nil, Date() < deadline, shell.isRunning {
            if manager.fileExists(atPath: runtimeDirectory.appendingPathComponent(display).path) {
                address = sessionBusAddress(ofProcessRunning: gnomeShell.path)
            }
            if address == nil { Thread.sleep(forTimeInterval: 0.1) }
        }
        guard let address else {
            shell.stop()
            systemBus.stop()
            throw HarnessError.failed("GNOME Shell did not start: \(shell.standardError.suffix(2000))")
        }
        busAddress = address
        // The Shell answers once started; it opens the overview at start, where no window has
        // the focus: closed, as a person's first click would.
        while Date() < deadline,
            (try? shellCall("org.freedesktop.DBus.Properties.Get", "org.gnome.Shell", "OverviewActive"))?.status != 0
        {
            Thread.sleep(forTimeInterval: 0.1)
        }
        Thread.sleep(forTimeInterval: 1)
        _ = try shellCall("org.freedesktop.DBus.Properties.Set", "org.gnome.Shell", "OverviewActive", "<false>")
    }

    private static let picturesUUID = "screenward-test-pictures@screenward.org"

    deinit { stop() }

    /// The stage as a PNG, taken by the Shell (`org.gnome.Shell.Screenshot`) as the account.
    public func screenshot(to file: URL) throws {
        let result = try run([
            "/usr/bin/gdbus", "call", "--session", "--dest", "org.gnome.Shell", "--object-path",
            "/org/gnome/Shell/Screenshot", "--method", "org.gnome.Shell.Screenshot.Screenshot", "false", "false",
            file.path,
        ])
        guard result.status == 0, result.output.contains("true") else {
            throw HarnessError.failed("GNOME Shell's screenshot: \(result.output) \(result.error)")
        }
    }

    public func stop() {
        shell.stop()
        systemBus.stop()
    }

    /// Calls a method of the Shell's object (`gdbus call`) as the account, on the session's bus.
    @discardableResult
    public func shellCall(_ method: String, _ arguments: String...) throws -> (
        status: Int32, output: String, error: String
    ) {
        try run(
            [
                "/usr/bin/gdbus", "call", "--session", "--dest", "org.gnome.Shell", "--object-path",
                "/org/gnome/Shell", "--method", method,
            ] + arguments)
    }

    /// Runs `script` in the Shell (`org.gnome.Shell.Eval`, which its unsafe mode allows) and
    /// returns what it evaluated to (a string as it is, anything else as JSON).
    public func evaluate(_ script: String) throws -> String {
        let result = try shellCall("org.gnome.Shell.Eval", script)
        // "(true, 'JSON of the value')"
        let output = result.output.trimmingCharacters(in: .whitespacesAndNewlines)
        guard result.status == 0, output.hasPrefix("(true, '"), output.hasSuffix("')") else {
            throw HarnessError.failed("GNOME Shell's Eval of \(script): \(result.output) \(result.error)")
        }
        let json = String(output.dropFirst("(true, '".count).dropLast(2))
        let value = try? JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed)
        return value as? String ?? json
    }

    /// The WM classes of the Shell's windows (a Wayland client's app_id).
    public func windowClasses() throws -> [String] {
        let classes = try evaluate(
            "global.get_window_actors().map(a => a.meta_window.get_wm_class()).join(',')")
        return classes.split(separator: ",").map(String.init)
    }

    /// Activates the first window whose WM class is `wmClass`, as a click on it would; the
    /// moment, by the Shell's own clock, it was asked to (what the activation makes the Shell
    /// tell may come before any clock read after it).
    public func activate(wmClass: String) throws -> Date {
        let microseconds = try evaluate(
            """
            let w = global.get_window_actors().map(a => a.meta_window).find(w => w.get_wm_class() == '\(wmClass)');
            let asked = imports.gi.GLib.get_real_time();
            w.activate(global.display.get_current_time_roundtrip()); asked
            """)
        guard let value = Double(microseconds) else { throw HarnessError.failed("no window of class \(wmClass)") }
        return Date(timeIntervalSince1970: value / 1_000_000)
    }

    /// Presses keys (X keysyms: 0xff0d is Return) on a virtual keyboard of Mutter's remote
    /// desktop service, as the account: real input, which reaches what has the keyboard (a
    /// remote desktop session ends with the connection that made it, so one Python process
    /// with GLib's D-Bus makes it, starts it and presses).
    public func press(keysyms: [UInt32]) throws {
        let script = """
            import sys, time
            from gi.repository import Gio, GLib
            bus = Gio.bus_get_sync(Gio.BusType.SESSION)
            def call(path, interface, method, parameters=None):
                return bus.call_sync('org.gnome.Mutter.RemoteDesktop', path, interface, method, parameters, None,
                                     Gio.DBusCallFlags.NONE, 5000, None)
            session = call('/org/gnome/Mutter/RemoteDesktop', 'org.gnome.Mutter.RemoteDesktop',
                           'CreateSession').unpack()[0]
            interface = 'org.gnome.Mutter.RemoteDesktop.Session'
            call(session, interface, 'Start')
            time.sleep(0.3)
            for keysym in sys.argv[1:]:
                for down in (True, False):
                    call(session, interface, 'NotifyKeyboardKeysym', GLib.Variant('(ub)', (int(keysym), down)))
                    time.sleep(0.05)
            call(session, interface, 'Stop')
            """
        let result = try run(["/usr/bin/python3", "-c", script] + keysyms.map(String.init))
        guard result.status == 0 else { throw HarnessError.failed("pressing keys in GNOME Shell: \(result.error)") }
    }

    /// What a program of the session has in its environment.
    public var environment: [String: String] {
        [
            "HOME": "/home/\(user)", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "GDK_BACKEND": "wayland",
            "XDG_RUNTIME_DIR": runtimeDirectory.path, "WAYLAND_DISPLAY": display,
            "DBUS_SESSION_BUS_ADDRESS": busAddress, "XDG_CURRENT_DESKTOP": "GNOME",
        ]
    }
}
