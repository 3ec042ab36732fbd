import Foundation

/// A private KWin (Plasma's Wayland compositor), run headless (`--virtual`) as an unprivileged
/// account with a session bus of its own (`dbus-run-session`): a real KWin session that tests
/// own and tear down. Windows are activated through a KWin script, as a person's click would
/// activate them.
public final class PrivateKWinSession: AccountSession {
    public let user: String
    public let runtimeDirectory: URL
    public let display = "wayland-swt"
    /// The session bus KWin is on (`DBUS_SESSION_BUS_ADDRESS`).
    public let busAddress: String
    private let compositor: ChildProcess
    private var scripts = 0

    /// Whether KWin and dbus-run-session are installed.
    public static func canStart() -> Bool {
        ["kwin_wayland", "dbus-run-session", "dbus-send", "runuser"].allSatisfy { PrivateXSession.which($0) != nil }
    }

    /// Starts KWin as `user`, its runtime folder in `work`. Debian installs kwin_wayland with a file
    /// capability (CAP_SYS_RESOURCE, to raise its own priority) that a container without it refuses
    /// to run: the account runs a copy without the capability, named kwin_wayland as KWin requires.
    public init(user: String, in work: URL) throws {
        guard let kwin = PrivateXSession.which("kwin_wayland") else {
            throw HarnessError.missingProgram("kwin_wayland is not installed (Debian: apt-get install kwin-wayland)")
        }
        self.user = user
        runtimeDirectory = work.appendingPathComponent("runtime-\(user)")
        let copy = work.appendingPathComponent("kwin/kwin_wayland")
        let manager = FileManager.default
        try manager.createDirectory(at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
        try manager.copyItem(at: kwin, to: copy)
        try manager.createDirectory(at: runtimeDirectory, withIntermediateDirectories: true)
        try LocalUsers.capture("/usr/bin/chown", [user, runtimeDirectory.path])
        try manager.setAttributes([.posixPermissions: 0o700], ofItemAtPath: runtimeDirectory.path)
        for path in [work.path, copy.deletingLastPathComponent().path, copy.path] {
            try manager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        }
        compositor = try ChildProcess(
            URL(fileURLWithPath: "/usr/sbin/runuser"),
            [
                "-u", user, "--", "/usr/bin/env", "-i", "HOME=/home/\(user)", "PATH=/usr/bin:/bin",
                "XDG_RUNTIME_DIR=\(runtimeDirectory.path)",
                // What scripts print (`activate`'s moment) on KWin's standard error.
                "QT_LOGGING_RULES=kwin_scripting.debug=true", "/usr/bin/dbus-run-session", "--", copy.path, "--virtual",
                "--width", "1280", "--height", "720", "--socket", display,
            ])
        var address: String?
        let deadline = Date().addingTimeInterval(30)
        while address == nil, Date() < deadline, compositor.isRunning {
            if manager.fileExists(atPath: runtimeDirectory.appendingPathComponent(display).path) {
                address = sessionBusAddress(ofProcessRunning: copy.path)
            }
            if address == nil { Thread.sleep(forTimeInterval: 0.1) }
        }
        guard let address else {
            compositor.stop()
            throw HarnessError.failed("KWin did not start: \(compositor.standardError.suffix(2000))")
        }
        busAddress = address
        // KWin answers on the bus a moment after its socket appears.
        while Date() < deadline,
            (try? run([
                "/usr/bin/dbus-send", "--session", "--print-reply", "--dest=org.kde.KWin",
                "/KWin", "org.kde.KWin.currentDesktop",
            ]).status) != 0
        {
            Thread.sleep(forTimeInterval: 0.1)
        }
    }

    deinit { stop() }

    public func stop() { compositor.stop() }

    /// What a program of the session has in its environment.
    public var environment: [String: String] {
        [
            "HOME": "/home/\(user)", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "GDK_BACKEND": "wayland",
            "XDG_RUNTIME_DIR": runtimeDirectory.path, "WAYLAND_DISPLAY": display,
            "DBUS_SESSION_BUS_ADDRESS": busAddress,
        ]
    }

    /// Activates the first window whose class is `resourceClass`, through a KWin script; the
    /// moment, by KWin's clock (to the millisecond), the script asked for it.
    @discardableResult
    public func activate(resourceClass: String, in work: URL) throws -> Date {
        let milliseconds = try runScript(
            """
            var result = Date.now();
            var clients = workspace.clientList();
            for (var i = 0; i < clients.length; i++) {
                if (String(clients[i].resourceClass) == "\(resourceClass)") {
                    workspace.activeClient = clients[i];
                    break;
                }
            }
            """, in: work)
        guard let value = Double(milliseconds) else { throw HarnessError.failed("KWin's moment: \(milliseconds)") }
        return Date(timeIntervalSince1970: value / 1000)
    }

    /// The classes of KWin's windows (a Wayland client's app_id), through a KWin script.
    public func windowClasses(in work: URL) throws -> [String] {
        let classes = try runScript(
            """
            var result = workspace.clientList().map(function (c) { return String(c.resourceClass); }).join(",");
            """, in: work)
        return classes.split(separator: ",").map(String.init)
    }

    /// Loads, runs and unloads `body` as a KWin script, in a file in `work` (a folder KWin, as
    /// the account, can read); the value it leaves in `result`, which it prints on KWin's
    /// standard error.
    private func runScript(_ body: String, in work: URL) throws -> String {
        scripts += 1
        let file = work.appendingPathComponent("script-\(scripts).js")
        let marker = "screenward-script-\(scripts) "
        try (body + "\nprint(\"\(marker)\" + result);\n").write(to: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
        let name = "screenward-test-\(scripts)"
        let load = try run([
            "/usr/bin/dbus-send", "--session", "--print-reply", "--dest=org.kde.KWin", "/Scripting",
            "org.kde.kwin.Scripting.loadScript", "string:\(file.path)", "string:\(name)",
        ])
        guard load.status == 0, let id = load.output.split(separator: " ").last.flatMap({ Int($0) }) else {
            throw HarnessError.failed("KWin did not load \(file.path): \(load.error)")
        }
        let started = try run([
            "/usr/bin/dbus-send", "--session", "--print-reply", "--dest=org.kde.KWin", "/\(id)",
            "org.kde.kwin.Script.run",
        ])
        guard started.status == 0 else { throw HarnessError.failed("KWin did not run \(file.path): \(started.error)") }
        _ = try run([
            "/usr/bin/dbus-send", "--session", "--print-reply", "--dest=org.kde.KWin", "/Scripting",
            "org.kde.kwin.Scripting.unloadScript", "string:\(name)",
        ])
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            for line in compositor.standardError.split(separator: "\n") {
                guard let range = line.range(of: marker) else { continue }
                // KWin quotes what a script prints.
                return line[range.upperBound...].trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
        throw HarnessError.failed("KWin's script printed nothing: \(compositor.standardError.suffix(1000))")
    }
}
