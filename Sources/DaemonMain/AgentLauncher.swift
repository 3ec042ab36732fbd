import Foundation
import GLibRuntime
import ScreenwardCore

/// The managed user of a session, as the launcher needs them.
struct SessionUser {
    var uid: UInt32
    var gid: UInt32
    var home: String
}

/// Starts a managed session's agent: as the agents' system user (never the child, who
/// could then signal or trace it), on the session's display, with a copy of the
/// session's X authority that only the agents' user can read, and a clean environment.
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
        case failed(String)

        var description: String {
            switch self {
            case .noDisplay(let id): "session \(id) has no X display"
            case .noAuthority(let id, let tried):
                "no X authority for session \(id) (tried \(tried.joined(separator: ", ")))"
            case .failed(let reason): "the agent could not be started: \(reason)"
            }
        }
    }

    /// The running agent process; `onExit` is called on a Foundation thread.
    func launch(
        for session: LogindSession, user: SessionUser,
        onExit: @escaping @Sendable (_ pid: Int32, _ status: Int32) -> Void
    ) throws -> Process {
        guard !session.display.isEmpty else { throw LaunchError.noDisplay(session.id) }
        // sessions/ is traversable (0755) so that the agents' user reaches its own 0700 folder.
        let sessions = runtimeDirectory.appendingPathComponent("sessions", isDirectory: true)
        try FileManager.default.createDirectory(
            at: sessions, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let directory = sessions.appendingPathComponent(session.id.rawValue, isDirectory: true)
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let authority = directory.appendingPathComponent("Xauthority")
        try copyAuthority(of: session, user: user, to: authority)
        // The agents' user owns its directory (GTK keeps caches under HOME) and the cookie.
        for path in [directory.path, authority.path] {
            try FileManager.default.setAttributes(
                [.ownerAccountID: agentAccount.uid, .groupOwnerAccountID: agentAccount.gid], ofItemAtPath: path)
        }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments =
            [
                "--reuid=\(agentAccount.uid)", "--regid=\(agentAccount.gid)", "--clear-groups", "--",
                agentExecutable.path, "--managed-session", session.id.rawValue, "--daemon-socket", daemonSocket,
                "--display", session.display,
                "--data-directories", dataDirectories,
            ] + (log.verbose ? ["--verbose"] : [])
        var environment = [
            "PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": directory.path, "XAUTHORITY": authority.path,
            "XDG_SESSION_ID": session.id.rawValue, "LANG": ProcessInfo.processInfo.environment["LANG"] ?? "C.UTF-8",
        ]
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
