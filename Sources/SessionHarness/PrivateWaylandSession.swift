import Foundation

/// A private sway, run headless as an unprivileged account (sway refuses to run as root) with
/// a runtime folder of its own: a real wlroots Wayland session that tests and benchmarks own and
/// tear down. Programs run in it as that account (`start`, `run`), keys come from a virtual
/// keyboard (`wtype`, as a keyboard's would) and pictures from `grim`.
public final class PrivateWaylandSession: AccountSession {
    /// The window sway shows, as its tree names it.
    public struct Window: Equatable, Sendable {
        public var id: Int
        public var appID: String?
        public var pid: Int32?
        public var focused: Bool
        public var fullscreen: Bool
    }

    public let user: String
    public let runtimeDirectory: URL
    /// The compositor's socket's name (`WAYLAND_DISPLAY`).
    public let display: String
    /// Sway's IPC socket (`SWAYSOCK`).
    public let swaySocket: String
    private let compositor: ChildProcess

    /// Whether sway, foot, grim and wtype are installed.
    public static func canStart() -> Bool {
        ["sway", "foot", "grim", "wtype", "runuser"].allSatisfy { PrivateXSession.which($0) != nil }
    }

    /// Starts sway headless as `user` (an account of `LocalUsers`), its runtime folder in `work`,
    /// with `extraEnvironment` (`NAME=value`) added to sway's own.
    public init(user: String, in work: URL, extraEnvironment: [String] = []) throws {
        guard let sway = PrivateXSession.which("sway") else {
            throw HarnessError.missingProgram("sway is not installed (Debian: apt-get install sway)")
        }
        self.user = user
        runtimeDirectory = work.appendingPathComponent("runtime-\(user)")
        try FileManager.default.createDirectory(at: runtimeDirectory, withIntermediateDirectories: true)
        try LocalUsers.capture("/usr/bin/chown", [user, runtimeDirectory.path])
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: runtimeDirectory.path)
        // The folder above must let the account through.
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: work.path)
        compositor = try ChildProcess(
            URL(fileURLWithPath: "/usr/sbin/runuser"),
            [
                "-u", user, "--", "/usr/bin/env", "-i", "HOME=/home/\(user)", "PATH=/usr/bin:/bin",
                "XDG_RUNTIME_DIR=\(runtimeDirectory.path)", "WLR_BACKENDS=headless", "WLR_LIBINPUT_NO_DEVICES=1",
                "WLR_RENDERER=pixman",
            ] + extraEnvironment + [sway.path, "--config", "/dev/null"])
        var found: (display: String, ipc: String)?
        let deadline = Date().addingTimeInterval(20)
        while found == nil, Date() < deadline, compositor.isRunning {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: runtimeDirectory.path)) ?? []
            if let display = names.first(where: { $0.hasPrefix("wayland-") && !$0.hasSuffix(".lock") }),
                let ipc = names.first(where: { $0.hasPrefix("sway-ipc.") })
            {
                found = (display, runtimeDirectory.appendingPathComponent(ipc).path)
            } else {
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        guard let found else {
            compositor.stop()
            throw HarnessError.failed("sway did not start: \(compositor.standardError.suffix(2000))")
        }
        (display, swaySocket) = found
    }

    /// The process that started sway (runuser, as a display manager's session process is).
    public var leaderPID: Int32 { compositor.pid }

    deinit { stop() }

    public func stop() {
        compositor.stop()
    }

    /// What a program of the session has in its environment.
    public var environment: [String: String] {
        [
            "HOME": "/home/\(user)", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8",
            "XDG_RUNTIME_DIR": runtimeDirectory.path, "WAYLAND_DISPLAY": display, "SWAYSOCK": swaySocket,
        ]
    }

    /// `swaymsg` with `arguments`; its output.
    @discardableResult
    public func swaymsg(_ arguments: [String]) throws -> String {
        let result = try run(["/usr/bin/swaymsg"] + arguments)
        guard result.status == 0 else { throw HarnessError.failed("swaymsg \(arguments): \(result.error)") }
        return result.output
    }

    /// The windows sway shows, from its tree.
    public func windows() throws -> [Window] {
        let tree = try JSONSerialization.jsonObject(with: Data(try swaymsg(["-t", "get_tree"]).utf8))
        var found: [Window] = []
        func walk(_ node: [String: Any]) {
            if let pid = node["pid"] as? Int {
                found.append(
                    Window(
                        id: node["id"] as? Int ?? 0, appID: node["app_id"] as? String, pid: Int32(pid),
                        focused: node["focused"] as? Bool ?? false,
                        fullscreen: (node["fullscreen_mode"] as? Int ?? 0) != 0))
            }
            for key in ["nodes", "floating_nodes"] {
                for child in node[key] as? [[String: Any]] ?? [] { walk(child) }
            }
        }
        if let root = tree as? [String: Any] { walk(root) }
        return found
    }

    /// Presses `keys` (xkb key names: `Return`, `space`) on a virtual keyboard, as a keyboard's
    /// keys reach the focused surface. A new virtual keyboard's first key goes with its keymap
    /// and is lost to GTK, so a Shift goes first.
    public func press(_ keys: [String]) throws {
        let result = try run(["/usr/bin/wtype", "-k", "Shift_L"] + keys.flatMap { ["-s", "50", "-k", $0] })
        guard result.status == 0 else { throw HarnessError.failed("wtype \(keys): \(result.error)") }
    }

    /// The output as a PNG, taken by grim as the account.
    public func screenshot(to file: URL) throws {
        let result = try run(["/usr/bin/grim", file.path])
        guard result.status == 0 else { throw HarnessError.failed("grim: \(result.error)") }
    }

    /// Whether the output shows a shield's button (the default look's blue, where the default
    /// layout puts it: in the middle of the output, a little below its centre, higher when a
    /// second button is under it), from a picture taken into `scratch` (a folder the account
    /// may write).
    public func showsShieldButton(scratch: URL) throws -> Bool {
        let picture = scratch.appendingPathComponent("screen-\(UUID().uuidString).png")
        try screenshot(to: picture)
        defer { try? FileManager.default.removeItem(at: picture) }
        let text = try LocalUsers.capture(
            "/usr/bin/convert", [picture.path, "-crop", "1x80+640+400", "-depth", "8", "txt:-"])
        return text.output.lowercased().contains("#0a84ff")
    }
}
