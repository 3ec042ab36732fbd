import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The agent's claim on a Screenward home: an exclusive `flock` on `agent.lock`.
///
/// The kernel drops the lock when the agent dies, however it dies, so "is the agent
/// running" never depends on a stale pid file; a second agent on the same home is
/// refused instead of double-counting.
public final class AgentLock: Sendable {
    private let handle: FileHandle

    private init(handle: FileHandle) { self.handle = handle }

    public enum LockError: Error, CustomStringConvertible {
        case alreadyRunning(path: String, pid: String)
        case cannotOpen(path: String)

        public var description: String {
            switch self {
            case .alreadyRunning(let path, let pid):
                "another screenward-agent (pid \(pid)) already runs on this Screenward home (\(path) is locked)"
            case .cannotOpen(let path):
                "cannot open the agent lock \(path)"
            }
        }
    }

    /// Takes the lock for this process and writes its pid into the file.
    public static func acquire(in home: ScreenwardHome) throws -> AgentLock {
        let path = home.agentLockURL.path
        let handle = try openLockFile(path)
        guard flock(handle.fileDescriptor, LOCK_EX | LOCK_NB) == 0 else {
            let holder =
                (try? String(contentsOfFile: path, encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
            try? handle.close()
            throw LockError.alreadyRunning(path: path, pid: holder.isEmpty ? "?" : holder)
        }
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data("\(ProcessInfo.processInfo.processIdentifier)\n".utf8))
        try handle.synchronize()
        return AgentLock(handle: handle)
    }

    /// Whether some process holds the lock right now.
    public static func isHeld(in home: ScreenwardHome) -> Bool {
        let path = home.agentLockURL.path
        guard FileManager.default.fileExists(atPath: path), let handle = FileHandle(forReadingAtPath: path) else {
            return false
        }
        defer { try? handle.close() }
        if flock(handle.fileDescriptor, LOCK_SH | LOCK_NB) == 0 {
            _ = flock(handle.fileDescriptor, LOCK_UN)
            return false
        }
        return true
    }

    private static func openLockFile(_ path: String) throws -> FileHandle {
        if !FileManager.default.fileExists(atPath: path) {
            _ = FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
        }
        guard let handle = FileHandle(forUpdatingAtPath: path) else { throw LockError.cannotOpen(path: path) }
        return handle
    }
}
