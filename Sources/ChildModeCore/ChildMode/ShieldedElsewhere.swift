import Foundation
import ScreenwardBasics

/// Which processes of shielded apps the daemon should hold though no shield covers them:
/// a shielded app is shielded wherever it draws. A process of a shielded app is held when
/// it is not a client of the session's display (it draws on a nested display server, or
/// another), or when a window of it was covered before and is not now (taken from its
/// shield: withdrawn, reparented). A new process gets time to open its window here first,
/// where its shield shows why nothing else happens. A policy over values, without X or
/// processes: the agent gives it what it reads.
public struct ShieldedElsewhere {
    /// How often the agent asks again (a nested server's clients come and go unseen).
    public static let interval: Duration = .milliseconds(500)
    /// How long a new process has to become a client of the session's display.
    public static let patience: Duration = .seconds(2)

    /// pid → its executable and when it was first in the daemon's table.
    private var seen: [Int32: (executable: String, since: ContinuousClock.Instant)] = [:]
    /// Processes of covered windows, while their app stays shielded.
    private var wasCovered: Set<Int32> = []
    /// Processes of covered windows now: held as covered, not here.
    private var coveredNow: Set<Int32> = []
    private var last: [Int32] = []

    public init() {}

    public mutating func covered(_ processes: Set<Int32>) {
        wasCovered.formUnion(processes)
        coveredNow = processes
    }

    /// The processes to hold now, or nil when that has not changed since the last answer.
    /// `displayClients` is asked only when some process of a shielded app runs.
    public mutating func held(
        programs: [ProgramFacts], isShielded: (ProgramFacts) -> Bool, displayClients: () -> Set<Int32>,
        now: ContinuousClock.Instant = .now
    ) -> [Int32]? {
        var fresh: [Int32: (executable: String, since: ContinuousClock.Instant)] = [:]
        var candidates: [ProgramFacts] = []
        for program in programs {
            let known = seen[program.pid].flatMap { $0.executable == program.executable ? $0 : nil }
            fresh[program.pid] = known ?? (program.executable, now)
            if isShielded(program) { candidates.append(program) }
        }
        seen = fresh
        wasCovered = wasCovered.intersection(candidates.map(\.pid))
        var held: [Int32] = []
        if !candidates.isEmpty {
            let clients = displayClients()
            for program in candidates where !coveredNow.contains(program.pid) {
                let old = now - (fresh[program.pid]?.since ?? now) >= Self.patience
                if wasCovered.contains(program.pid) || (old && !clients.contains(program.pid)) {
                    held.append(program.pid)
                }
            }
        }
        held.sort()
        guard held != last else { return nil }
        last = held
        return held
    }
}
