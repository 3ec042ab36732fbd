import Foundation
import ScreenwardCore
import Synchronization

/// The managed user's processes as the daemon read them (the agent may not read them
/// itself): a process inspector for identity, and the facts each window's identity is
/// narrowed to. Written on the link's queue, read on the loop.
final class DaemonPrograms: ProcessInspector, Sendable {
    private let table = Mutex<[Int32: ProgramFacts]>([:])
    private let changed = Mutex<(@Sendable () -> Void)?>(nil)
    /// World-readable facts (the command line) still come from /proc.
    private let procfs = ProcfsInspector()

    func replace(with programs: [ProgramFacts]) {
        table.withLock { table in
            table = Dictionary(programs.map { ($0.pid, $0) }, uniquingKeysWith: { _, last in last })
        }
        changed.withLock { $0 }?()
    }

    /// Hears each new table (on the link's queue).
    func onChange(_ handler: @escaping @Sendable () -> Void) {
        changed.withLock { $0 = handler }
    }

    /// Every process of the user the daemon told of last.
    var all: [ProgramFacts] { table.withLock { Array($0.values) } }

    func facts(pid: Int32) -> ProgramFacts? {
        table.withLock { $0[pid] }
    }

    func executablePath(pid: Int32) -> String? { facts(pid: pid)?.executable }
    // What the child's process says of itself (its environment) is not asked: it could
    // name any Flatpak or snap. The executable is enough.
    func flatpakApplicationID(pid: Int32) -> String? { nil }
    func environment(pid: Int32) -> [String: String]? { nil }
    func commandLine(pid: Int32) -> [String]? { procfs.commandLine(pid: pid) }
}
