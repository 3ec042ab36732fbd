import Foundation
import Glibc
import Synchronization

/// The box an extension process runs in: a process group of its own (so everything it
/// starts is killed with it, unless it leaves the group), resource limits set by util-linux's
/// `prlimit` before the program starts, and a clean environment.
public struct ExtensionLimits: Sendable, Hashable {
    /// Its data (heap and private mappings), in bytes.
    public var memoryBytes: Int = 128 << 20
    /// CPU time, in seconds, over the process's life (an idle extension uses little).
    public var cpuSeconds: Int = 60
    /// Processes and threads of the user it runs as (RLIMIT_NPROC counts the user's,
    /// not the extension's: in individual mode it is the user's count now plus this).
    public var extraProcesses: Int = 64
    /// Output on stdout and stderr together; beyond it the extension is killed.
    public var outputBytes: Int = 1 << 20

    public init() {}
}

/// One extension process the owner started.
public final class ExtensionProcess: Sendable {
    public let pid: Int32
    public let app: String
    public let point: ExtensionPoint
    private let process: Mutex<Process?>
    private let killReason = Shared<String?>(nil)

    /// How it ended: its status, and the owner's reason when the owner killed it.
    public struct Exit: Sendable {
        public var pid: Int32
        public var app: String
        public var point: ExtensionPoint
        public var status: Int32
        public var signalled: Bool
        public var killedBecause: String?
    }

    /// Who an extension runs as when the owner is root (the system daemon): a system
    /// user of the extensions' own, set by util-linux's `setpriv` after the limits.
    public struct Identity: Sendable, Hashable {
        public var uid: UInt32
        public var gid: UInt32
        public init(uid: UInt32, gid: UInt32) {
            self.uid = uid
            self.gid = gid
        }
    }

    /// Starts `extension` of `app` (as `identity`, or as the owner's own user when nil).
    /// `onOutput` gets its output lines (bounded), `onExit` its end; both on threads of their own.
    public init(
        _ extension: AppExtension, app: String, environment: [String: String],
        limits: ExtensionLimits = ExtensionLimits(),
        currentProcesses: Int, runningAs identity: Identity? = nil,
        onOutput: @escaping @Sendable (String) -> Void, onExit: @escaping @Sendable (Exit) -> Void
    ) throws {
        self.app = app
        point = `extension`.point
        let process = Process()
        // Foundation starts it as the leader of a process group of its own; prlimit
        // execs the program, so the pid stays the program's.
        let command = Self.boxedCommand(
            `extension`, limits: limits, currentProcesses: currentProcesses, identity: identity)
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        let killReason = killReason
        let point = point
        process.terminationHandler = { ended in
            onExit(
                Exit(
                    pid: ended.processIdentifier, app: app, point: point, status: ended.terminationStatus,
                    signalled: ended.terminationReason == .uncaughtSignal,
                    killedBecause: killReason.value.withLock { $0 }))
        }
        self.process = Mutex(process)
        try process.run()
        pid = process.processIdentifier
        Self.drain(output.fileHandleForReading, limit: limits.outputBytes, onLine: onOutput) { [pid, killReason] in
            killReason.value.withLock { $0 = $0 ?? "it wrote more than \(limits.outputBytes / 1024) KiB of output" }
            _ = Glibc.kill(-pid, SIGKILL)
        }
    }

    /// The command line of an extension in its box: `prlimit` sets the limits, then
    /// `isolation` (a report's own network), then (as root) setpriv drops to the
    /// extensions' user for good: real and effective ids, no supplementary groups, and no
    /// way back through setuid programs. Each execs the next, so the pid is the program's.
    static func boxedCommand(
        _ extension: AppExtension, limits: ExtensionLimits, currentProcesses: Int, identity: Identity?,
        isolation: [String] = []
    ) -> [String] {
        let dropPrivileges =
            identity.map {
                [
                    "/usr/bin/setpriv", "--reuid=\($0.uid)", "--regid=\($0.gid)", "--clear-groups", "--no-new-privs",
                    "--",
                ]
            } ?? []
        return [
            "/usr/bin/prlimit", "--data=\(limits.memoryBytes)", "--cpu=\(limits.cpuSeconds)",
            "--nproc=\(currentProcesses + limits.extraProcesses)", "--core=0", "--",
        ] + isolation + dropPrivileges + [`extension`.executable] + `extension`.arguments
    }

    public var isRunning: Bool { process.withLock { $0?.isRunning ?? false } }

    /// Kills the extension and everything it started.
    public func kill(because reason: String) {
        killReason.value.withLock { $0 = $0 ?? reason }
        _ = Glibc.kill(-pid, SIGKILL)
        _ = Glibc.kill(pid, SIGKILL)
    }

    /// Reads the output as it comes, line by line; past `limit` bytes, `tooMuch` once.
    private static func drain(
        _ handle: FileHandle, limit: Int, onLine: @escaping @Sendable (String) -> Void,
        tooMuch: @escaping @Sendable () -> Void
    ) {
        let state = Shared<(pending: Data, total: Int, over: Bool)>((Data(), 0, false))
        handle.readabilityHandler = { handle in
            let chunk = handle.availableData
            if chunk.isEmpty {
                handle.readabilityHandler = nil
                return
            }
            let (lines, exceeded) = state.value.withLock { state -> ([String], Bool) in
                state.total += chunk.count
                if state.over { return ([], false) }
                if state.total > limit {
                    state.over = true
                    return ([], true)
                }
                state.pending.append(chunk)
                var lines: [String] = []
                while let newline = state.pending.firstIndex(of: 0x0A) {
                    lines.append(
                        String(decoding: state.pending[state.pending.startIndex..<newline].prefix(500), as: UTF8.self))
                    state.pending = Data(state.pending[state.pending.index(after: newline)...])
                }
                if state.pending.count > 4096 {
                    lines.append(String(decoding: state.pending.prefix(500), as: UTF8.self))
                    state.pending = Data()
                }
                return (lines, false)
            }
            lines.forEach(onLine)
            if exceeded { tooMuch() }
        }
    }
}

extension ExtensionProcess {
    /// Whether any process of process group `group` is left, a zombie included (field 5 of
    /// /proc/PID/stat, after the command's closing parenthesis).
    public static func groupRemains(_ group: Int32) -> Bool {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries where entry.first?.isNumber == true {
            guard let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.range(of: ")", options: .backwards)
            else { continue }
            let fields = stat[close.upperBound...].split(separator: " ")
            // state, ppid, pgrp
            if fields.count > 2, Int32(fields[2]) == group { return true }
        }
        return false
    }

    /// The number of processes and threads `uid` runs now (what RLIMIT_NPROC counts).
    public static func taskCount(of uid: UInt32) -> Int {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        var count = 0
        for entry in entries where entry.first?.isNumber == true {
            guard let status = try? String(contentsOfFile: "/proc/\(entry)/status", encoding: .utf8) else { continue }
            var owner: UInt32?
            var threads = 1
            for line in status.split(separator: "\n") {
                if line.hasPrefix("Uid:") {
                    owner = line.split(whereSeparator: \.isWhitespace).dropFirst().first.flatMap { UInt32($0) }
                }
                if line.hasPrefix("Threads:") {
                    threads = line.split(whereSeparator: \.isWhitespace).dropFirst().first.flatMap { Int($0) } ?? 1
                }
            }
            if owner == uid { count += threads }
        }
        return count
    }
}

/// A lock shared by closures (a `Mutex` cannot be captured).
final class Shared<Value: Sendable>: Sendable {
    let value: Mutex<Value>
    init(_ value: Value) { self.value = Mutex(value) }
}
