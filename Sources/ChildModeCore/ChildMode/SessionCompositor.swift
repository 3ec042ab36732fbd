import Foundation
import ScreenwardBasics

/// The compositor of a managed child's Wayland session, as the daemon finds it: the outermost
/// compositor among the processes the session's leader started (a compositor nested in it is
/// the child's own, closed by `DisplayServers`), with the sockets it listens on. The agent is
/// pointed at these paths and checks, once connected, that this process is the one listening.
public struct SessionCompositor: Sendable, Equatable {
    public var pid: Int32
    /// `/proc/PID/exe`.
    public var executable: String
    /// Its Wayland socket (`…/wayland-N`).
    public var waylandSocket: String
    /// sway's IPC socket (`…/sway-ipc.UID.PID.sock`), where the windows' processes are named.
    public var swaySocket: String?

    /// Which backend of the agent's can follow it.
    public enum Family: String, Sendable, Equatable {
        /// sway: foreign toplevels for the focus, its IPC for the processes, layer shell.
        case sway
        /// KWin and GNOME Shell: followed in a person's own session, not yet in a managed one.
        case notServedYet
    }

    public var family: Family {
        ExecCommand.fileName(executable) == "sway" ? .sway : .notServedYet
    }

    public init(pid: Int32, executable: String, waylandSocket: String, swaySocket: String?) {
        self.pid = pid
        self.executable = executable
        self.waylandSocket = waylandSocket
        self.swaySocket = swaySocket
    }

    /// The programs a Wayland session runs as its compositor: `DisplayServers`' compositors and
    /// GNOME Shell (an X11 window manager too, which that list leaves out).
    public static let programs: Set<String> = DisplayServers.compositors.union(["gnome-shell"])

    /// Why a session has no compositor to serve yet.
    public enum Missing: Error, Sendable, Equatable, CustomStringConvertible {
        /// None of the leader's processes runs a compositor (yet: a session's compositor starts
        /// a moment after logind opens it).
        case noCompositor(leader: Int32)
        /// The compositor runs, and listens on no Wayland socket (yet).
        case noSocket(pid: Int32, executable: String)

        public var description: String {
            switch self {
            case .noCompositor(let leader): "no compositor runs among the processes of session leader \(leader)"
            case .noSocket(let pid, let executable):
                "the compositor \(executable) (pid \(pid)) listens on no Wayland socket"
            }
        }
    }

    /// Finds the compositor of the session led by `leader`, running as `uid`, in `procRoot`.
    public static func find(
        leader: Int32, uid: UInt32, procRoot: String = "/proc"
    ) -> Result<SessionCompositor, Missing> {
        let processes = ProcessTable.read(procRoot: procRoot)
        // Breadth first: the first compositor met is the outermost.
        var queue = [leader]
        var index = 0
        while index < queue.count {
            let pid = queue[index]
            index += 1
            if let process = processes.byPID[pid], process.uid == uid,
                let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(procRoot)/\(pid)/exe"),
                programs.contains(ExecCommand.fileName(executable))
            {
                let sockets = listeningSockets(of: pid, procRoot: procRoot)
                guard let wayland = sockets.first(where: isWaylandSocket) else {
                    return .failure(.noSocket(pid: pid, executable: executable))
                }
                return .success(
                    SessionCompositor(
                        pid: pid, executable: executable, waylandSocket: wayland,
                        swaySocket: sockets.first(where: isSwaySocket)))
            }
            queue += processes.children[pid] ?? []
        }
        return .failure(.noCompositor(leader: leader))
    }

    static func isWaylandSocket(_ path: String) -> Bool {
        let name = ExecCommand.fileName(path)
        return name.hasPrefix("wayland-") && !name.hasSuffix(".lock")
    }

    static func isSwaySocket(_ path: String) -> Bool {
        let name = ExecCommand.fileName(path)
        return name.hasPrefix("sway-ipc.") && name.hasSuffix(".sock")
    }

    /// The paths of the Unix sockets process `pid` listens on: its descriptors' socket inodes
    /// (`/proc/PID/fd`), looked up in the kernel's table (`/proc/net/unix`).
    static func listeningSockets(of pid: Int32, procRoot: String) -> [String] {
        let folder = "\(procRoot)/\(pid)/fd"
        var inodes: Set<Substring> = []
        for descriptor in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\(descriptor)"),
                target.hasPrefix("socket:[")
            else { continue }
            inodes.insert(target.dropFirst(8).dropLast())
        }
        guard let table = ProcfsInspector.read("\(procRoot)/net/unix", limit: 16 * 1024 * 1024) else { return [] }
        return listening(in: String(decoding: table, as: UTF8.self), inodes: inodes)
    }

    /// The paths, in `/proc/net/unix`'s text, of the listening sockets among `inodes`
    /// (`Num RefCount Protocol Flags Type St Inode Path`; Flags has __SO_ACCEPTCON).
    static func listening(in table: String, inodes: Set<Substring>) -> [String] {
        let acceptingConnections: UInt32 = 0x10000
        var paths: [String] = []
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ", maxSplits: 7, omittingEmptySubsequences: true)
            guard fields.count == 8, inodes.contains(fields[6]), let flags = UInt32(fields[3], radix: 16),
                flags & acceptingConnections != 0, fields[7].hasPrefix("/")
            else { continue }
            paths.append(String(fields[7]))
        }
        return paths
    }
}

/// The processes of the computer: each one's real uid and parent (`/proc/PID/status`).
struct ProcessTable {
    struct Process {
        var uid: UInt32
        var parent: Int32
    }

    var byPID: [Int32: Process] = [:]
    var children: [Int32: [Int32]] = [:]

    static func read(procRoot: String) -> ProcessTable {
        var table = ProcessTable()
        for name in (try? FileManager.default.contentsOfDirectory(atPath: procRoot)) ?? [] {
            guard let pid = Int32(name), let data = ProcfsInspector.read("\(procRoot)/\(name)/status", limit: 16 * 1024)
            else { continue }
            let status = String(decoding: data, as: UTF8.self)
            guard let parent = ProcessVetting.field("PPid", in: status).flatMap({ Int32($0) }),
                let uid = ProcessVetting.field("Uid", in: status)?.split(whereSeparator: \.isWhitespace).first
                    .flatMap({ UInt32($0) })
            else { continue }
            table.byPID[pid] = Process(uid: uid, parent: parent)
            table.children[parent, default: []].append(pid)
        }
        return table
    }
}
