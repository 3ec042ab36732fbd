import Foundation
import Glibc
import ScreenwardCore
import ScreenwardIPC

/// Holds the processes of a managed user's covered windows while their shield is up, so
/// that nothing reaches them by any path, synthetic events and XTEST included, whatever
/// becomes of the shield's picture; lets them go when it comes down.
///
/// With a cgroup v2 hierarchy the daemon may write (`CgroupFreezer`), a held process is
/// frozen: no signal wakes it and the child cannot move it out. Without one it is stopped
/// (SIGSTOP); the child may continue their own process (SIGCONT, a debugger), so one found
/// running again at a check (every scan) is ended (SIGKILL) and the attempt recorded; one the
/// busy machine has not stopped yet is not (`isStopped`).
final class ProcessHolds {
    private let freezer: CgroupFreezer?
    private struct Held {
        var executable: String
        /// With the freezer: where it came from, and where it is held.
        var cgroups: (original: String, held: String)?
        var since: ContinuousClock.Instant
    }
    /// uid → pid → how it is held.
    private var held: [UInt32: [Int32: Held]] = [:]
    /// A stop signal takes a moment to stop a busy process: it is checked only after this.
    private let settling: Duration = .milliseconds(300)
    var onEvent: ((_ uid: UInt32, _ kind: ChildEvent.Kind, _ what: Phrase) -> Void)?

    init(freezer: CgroupFreezer?) {
        self.freezer = freezer
        freezer?.thawLeftovers()
    }

    /// How processes are held here, in words for the log.
    var method: String {
        freezer.map { "frozen with the cgroup v2 freezer under \($0.mount)" }
            ?? "stopped with SIGSTOP (no writable cgroup v2 hierarchy): a child who continues one loses it"
    }

    /// What `uid`'s agent covers now: those processes are held, the others let go.
    /// `elsewhere` are those of shielded apps with no window on the session's display.
    /// `programs` is the user's table, so that only their own processes are touched.
    func cover(_ pids: Set<Int32>, of uid: UInt32, elsewhere: Set<Int32> = [], programs: (Int32) -> ProgramFacts?) {
        var now = held[uid] ?? [:]
        for (pid, entry) in now where !pids.contains(pid) {
            now[pid] = nil
            release(pid, entry)
        }
        for pid in pids where now[pid] == nil {
            guard let program = programs(pid) else { continue }
            var entry = Held(executable: program.executable, cgroups: nil, since: .now)
            if let freezer {
                do { entry.cgroups = try freezer.freeze(pid, uid: uid) } catch {
                    guard kill(pid, SIGSTOP) == 0 else { continue }
                    let failure = ["executable": program.executable, "pid": "\(pid)", "error": "\(error)"]
                    // swift-format-ignore
                    let what = Phrase("{executable} (pid {pid}) could not be frozen ({error}); it is stopped instead", context: "event", failure)
                    onEvent?(uid, .programHeld, what)
                }
            } else {
                guard kill(pid, SIGSTOP) == 0 else { continue }
            }
            now[pid] = entry
            let values = ["executable": program.executable, "pid": "\(pid)"]
            // swift-format-ignore
            let what =
                elsewhere.contains(pid)
                ? Phrase("{executable} (pid {pid}) is held while its app is shielded (it has no window on the session's display)", context: "event", values)
                : Phrase("{executable} (pid {pid}) is held while its shield is up", context: "event", values)
            onEvent?(uid, .programHeld, what)
        }
        held[uid] = now
    }

    /// The users with processes held.
    var heldUsers: [UInt32] { Array(held.keys) }

    /// Ends a held process of `uid` (a shield's Close): true when it was held and is ended.
    func close(_ pid: Int32, of uid: UInt32) -> Bool {
        guard let entry = held[uid]?[pid] else { return false }
        held[uid]?[pid] = nil
        end(pid, entry)
        onEvent?(
            uid, .programClosed,
            Phrase(
                "{executable} (pid {pid}) was closed from its shield", context: "event",
                ["executable": entry.executable, "pid": "\(pid)"]))
        return true
    }

    /// Checks every held process: one that runs again is ended; one that is gone is forgotten.
    func check() {
        for (uid, pids) in held {
            for (pid, entry) in pids where ContinuousClock.now - entry.since >= settling {
                guard let state = Self.state(of: pid) else {
                    held[uid]?[pid] = nil
                    if let cgroups = entry.cgroups { freezer?.remove(held: cgroups.held) }
                    continue
                }
                let stillHeld: Bool
                if entry.cgroups != nil, let freezer {
                    stillHeld = freezer.isHeld(pid)
                } else {
                    stillHeld = Self.isStopped(pid, leaderState: state)
                }
                guard !stillHeld else { continue }
                held[uid]?[pid] = nil
                end(pid, entry)
                let values = ["executable": entry.executable, "pid": "\(pid)"]
                // swift-format-ignore
                let what = Phrase("{executable} (pid {pid}) ran again while shielded (continued, traced or moved): it was closed", context: "event", values)
                onEvent?(uid, .programClosed, what)
            }
        }
    }

    /// Lets everything of `uid` go (or everyone's: the daemon stops).
    func releaseAll(of uid: UInt32? = nil) {
        for (owner, pids) in held where uid == nil || owner == uid {
            for (pid, entry) in pids { release(pid, entry) }
            held[owner] = nil
        }
    }

    private func release(_ pid: Int32, _ entry: Held) {
        if let cgroups = entry.cgroups, let freezer {
            freezer.thaw(pid, backTo: cgroups.original)
        } else {
            kill(pid, SIGCONT)
        }
    }

    private func end(_ pid: Int32, _ entry: Held) {
        kill(pid, SIGKILL)
        // A frozen process dies too (cgroup v2 lets SIGKILL through); its cgroup goes when it has.
        if let cgroups = entry.cgroups, let freezer {
            for _ in 0..<20 where Self.state(of: pid) != nil { usleep(5_000) }
            freezer.remove(held: cgroups.held)
        }
    }

    /// Whether a process sent SIGSTOP has not run since: stopped, or stopped by the child's
    /// debugger (no use to them while it stays so), or in the kernel, where a stop waits for
    /// it; or not stopped yet, because the machine is busy: the signal still pending, or the
    /// stop under way in its other threads. Only a SIGCONT (or a tracer's) resumes it, and a
    /// SIGCONT takes a pending stop back: so it is closed only when it really ran again.
    static func isStopped(_ pid: Int32, leaderState: String) -> Bool {
        let stopped: Set<String> = ["T", "t", "D"]
        if stopped.contains(leaderState) { return true }
        if let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let pending = status.split(separator: "\n").first(where: { $0.hasPrefix("ShdPnd:") }),
            let mask = UInt64(pending.dropFirst("ShdPnd:".count).trimmingCharacters(in: .whitespaces), radix: 16),
            mask & (1 << UInt64(SIGSTOP - 1)) != 0
        {
            return true
        }
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.contains { task in
            guard let tid = Int32(task), tid != pid, let state = state(of: tid, in: "/proc/\(pid)/task") else {
                return false
            }
            return stopped.contains(state)
        }
    }

    /// The process's state letter from /proc/PID/stat ("T" stopped, "t" stopped by a
    /// tracer, "R", "S"…), or nil when it is gone or a zombie.
    static func state(of pid: Int32, in folder: String = "/proc") -> String? {
        guard let stat = try? String(contentsOfFile: "\(folder)/\(pid)/stat", encoding: .utf8),
            let close = stat.range(of: ")", options: .backwards)
        else { return nil }
        let rest = stat[close.upperBound...].drop { $0 == " " }
        guard let letter = rest.first, letter != "Z", letter != "X" else { return nil }
        return String(letter)
    }
}
