import ChildModeCore
import Foundation
import GLibRuntime
import ScreenwardCore
import ScreenwardIPC
import SystemAccounts

/// The managed user of a session, as the launcher needs them.
struct SessionUser {
    var uid: UInt32
    var gid: UInt32
    var home: String
}

/// Starts a managed session's agent: as the agents' system user (never the child, who
/// could then signal or trace it), with a clean environment, on the session's display: on X11
/// with a copy of the session's X authority that only the agents' user can read; on Wayland at
/// the socket of the compositor the daemon found and vetted, which the agents' user is let
/// reach (an access list entry on the socket and its folder), told the compositor's process so
/// that it checks whom it reached.
struct AgentLauncher {
    let agentExecutable: URL
    let agentAccount: Account
    let daemonSocket: String
    let runtimeDirectory: URL
    /// The system's shared data folders, whose desktop entries name applications.
    let dataDirectories: String
    let log: DaemonLog

    enum LaunchError: Error, CustomStringConvertible {
        case noDisplay(SessionID)
        case noAuthority(SessionID, tried: [String])
        /// A Wayland session's compositor is not there yet (it starts a moment after logind
        /// opens the session).
        case noCompositor(SessionID, SessionCompositor.Missing)
        /// A Wayland session whose compositor no agent can serve, or which was refused: the
        /// session is ended.
        case unservable(SessionID, Phrase)
        case failed(String)

        var description: String {
            switch self {
            case .noDisplay(let id): "session \(id) has no X display"
            case .noAuthority(let id, let tried):
                "no X authority for session \(id) (tried \(tried.joined(separator: ", ")))"
            case .noCompositor(let id, let missing): "session \(id): \(missing)"
            case .unservable(let id, let why): "session \(id): \(why)"
            case .failed(let reason): "the agent could not be started: \(reason)"
            }
        }
    }

    /// The running agent process, on `compositor` for a Wayland session (`reachCompositor`);
    /// `onExit` is called on a Foundation thread.
    func launch(
        for session: LogindSession, user: SessionUser, compositor: SessionCompositor?,
        onExit: @escaping @Sendable (_ pid: Int32, _ status: Int32) -> Void
    ) throws -> Process {
        guard compositor != nil || !session.display.isEmpty else { throw LaunchError.noDisplay(session.id) }
        // sessions/ is traversable (0755) so that the agents' user reaches its own 0700 folder.
        let sessions = runtimeDirectory.appendingPathComponent("sessions", isDirectory: true)
        try FileManager.default.createDirectory(
            at: sessions, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let directory = sessions.appendingPathComponent(session.id.rawValue, isDirectory: true)
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var displayArguments: [String]
        var environment = [
            "PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": directory.path,
            "XDG_SESSION_ID": session.id.rawValue, "LANG": ProcessInfo.processInfo.environment["LANG"] ?? "C.UTF-8",
        ]
        var owned = [directory.path]
        if let compositor {
            displayArguments = [
                "--wayland-display", compositor.waylandSocket, "--compositor-pid", "\(compositor.pid)",
            ]
            environment["WAYLAND_DISPLAY"] = compositor.waylandSocket
            environment["SWAYSOCK"] = compositor.swaySocket
            // GTK's own runtime files: the agent's folder, not the child's.
            environment["XDG_RUNTIME_DIR"] = directory.path
        } else {
            let authority = directory.appendingPathComponent("Xauthority")
            try copyAuthority(of: session, user: user, to: authority)
            owned.append(authority.path)
            displayArguments = ["--display", session.display]
            environment["XAUTHORITY"] = authority.path
        }
        // The agents' user owns its directory (GTK keeps caches under HOME) and the cookie.
        for path in owned {
            try FileManager.default.setAttributes(
                [.ownerAccountID: agentAccount.uid, .groupOwnerAccountID: agentAccount.gid], ofItemAtPath: path)
        }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments =
            [
                "--reuid=\(agentAccount.uid)", "--regid=\(agentAccount.gid)", "--clear-groups", "--",
                agentExecutable.path, "--managed-session", session.id.rawValue, "--daemon-socket", daemonSocket,
            ] + displayArguments + ["--data-directories", dataDirectories] + (log.verbose ? ["--verbose"] : [])
        // A private system bus (tests) and a data directory chosen for the daemon go on to its agents.
        for name in ["DBUS_SYSTEM_BUS_ADDRESS", "SCREENWARD_DATA_DIR"] {
            if let value = ProcessInfo.processInfo.environment[name] { environment[name] = value }
        }
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.terminationHandler = { process in onExit(process.processIdentifier, process.terminationStatus) }
        do {
            try process.run()
        } catch {
            throw LaunchError.failed("\(error)")
        }
        return process
    }

    /// The compositor of a Wayland session, found among its leader's processes, vetted, and
    /// opened to the agents' user: search on its socket's folder, read and write on its
    /// sockets. The child owns them and may take that away again: then a new agent cannot
    /// connect, and the session is locked and ended as for any agent that cannot start.
    func reachCompositor(of session: LogindSession) throws -> SessionCompositor {
        let compositor: SessionCompositor
        switch SessionCompositor.find(leader: Int32(bitPattern: session.leaderPID), uid: session.uid) {
        case .success(let found): compositor = found
        case .failure(let missing): throw LaunchError.noCompositor(session.id, missing)
        }
        guard compositor.family == .sway else {
            // swift-format-ignore
            throw LaunchError.unservable(session.id, Phrase("its compositor ({compositor}) is not one a managed session can be enforced on yet (sway)", context: "event", ["compositor": compositor.executable]))
        }
        if let refusal = ProcessVetting().compositor(compositor, uid: session.uid) {
            // swift-format-ignore
            throw LaunchError.unservable(session.id, Phrase("its compositor was refused: {reason}", context: "event", ["reason": refusal.description]))
        }
        let folder = (compositor.waylandSocket as NSString).deletingLastPathComponent
        do {
            try AccessControlList.grant(.execute, to: agentAccount.uid, on: folder)
            for socket in [compositor.waylandSocket] + (compositor.swaySocket.map { [$0] } ?? []) {
                try AccessControlList.grant([.read, .write], to: agentAccount.uid, on: socket)
            }
        } catch {
            throw LaunchError.failed("the agents' user cannot be let reach the compositor: \(error)")
        }
        return compositor
    }

    /// The cookie file the session's X server accepts: the session leader's $XAUTHORITY
    /// (read from its environment, which root may), else the user's ~/.Xauthority.
    private func copyAuthority(of session: LogindSession, user: SessionUser, to destination: URL) throws {
        var tried: [String] = []
        var candidates: [String] = []
        if let environ = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(session.leaderPID)/environ")) {
            for entry in environ.split(separator: 0) {
                let text = String(decoding: entry, as: UTF8.self)
                if text.hasPrefix("XAUTHORITY="), text.count > 11 { candidates.append(String(text.dropFirst(11))) }
            }
        }
        candidates.append(user.home + "/.Xauthority")
        for path in candidates {
            tried.append(path)
            guard let cookie = readAsUser(user, path), !cookie.isEmpty else { continue }
            try? FileManager.default.removeItem(at: destination)
            guard
                FileManager.default.createFile(
                    atPath: destination.path, contents: cookie, attributes: [.posixPermissions: 0o600])
            else {
                throw LaunchError.failed("cannot write \(destination.path)")
            }
            return
        }
        throw LaunchError.noAuthority(session.id, tried: tried)
    }

    /// The child names these files and owns their folders: read them with the child's
    /// own rights (a symbolic link to /etc/shadow then reads nothing), at most 64 KiB, and
    /// never wait on them. The child may have put a FIFO or a device there, or may stop
    /// the reader (it runs as them): it opens without blocking, writes into a file of the
    /// daemon's rather than a pipe the daemon would wait on, and root's `timeout` kills
    /// it after half a second. What it read counts only if it is an X authority file.
    private func readAsUser(_ user: SessionUser, _ path: String) -> Data? {
        // In the daemon's own folder, where no user can put anything in its way.
        let output = runtimeDirectory.appendingPathComponent("cookie-\(UUID().uuidString)")
        guard
            FileManager.default.createFile(atPath: output.path, contents: nil, attributes: [.posixPermissions: 0o600]),
            let sink = try? FileHandle(forWritingTo: output)
        else { return nil }
        defer { try? FileManager.default.removeItem(at: output) }
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        reader.arguments = [
            "-s", "KILL", "0.5", "/usr/bin/setpriv", "--reuid=\(user.uid)", "--regid=\(user.gid)", "--clear-groups",
            "--",
            "/usr/bin/dd", "if=\(path)", "iflag=nonblock", "bs=65536", "count=1", "status=none",
        ]
        reader.environment = ["PATH": "/usr/bin:/bin"]
        reader.standardOutput = sink
        reader.standardError = FileHandle.nullDevice
        reader.standardInput = FileHandle.nullDevice
        guard (try? reader.run()) != nil else { return nil }
        reader.waitUntilExit()
        try? sink.close()
        guard reader.terminationReason == .exit, reader.terminationStatus == 0,
            let read = try? FileHandle(forReadingFrom: output),
            let data = try? read.read(upToCount: 65536)
        else { return nil }
        try? read.close()
        return Self.isAuthorityFile(data) ? data : nil
    }

    /// Whether `data` is a whole X authority file (what xauth writes): one or more entries
    /// of a 16-bit family and four 16-bit-length-prefixed fields (address, display number,
    /// name, data), big-endian, with nothing left over.
    static func isAuthorityFile(_ data: Data) -> Bool {
        let bytes = [UInt8](data)
        var index = 0
        var entries = 0
        while index < bytes.count {
            guard index + 2 <= bytes.count else { return false }
            index += 2  // the family
            for _ in 0..<4 {
                guard index + 2 <= bytes.count else { return false }
                let length = Int(bytes[index]) << 8 | Int(bytes[index + 1])
                index += 2 + length
                guard index <= bytes.count else { return false }
            }
            entries += 1
        }
        return entries > 0
    }
}
