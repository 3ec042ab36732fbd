import Foundation

/// What the system daemon does about one managed session's agent: start it, start it
/// again when it fails, lock the session when it cannot keep one running, and end the
/// session when it stays unenforced. Plain decisions over times the daemon passes in, so
/// the policy is tested without processes or clocks; the daemon carries the actions out.
///
/// The policy (docs/architecture.md): a failed agent is restarted at once (within 1 s);
/// 3 failures within 60 s, or an agent that has not reported for 5 s, lock the session;
/// if no agent has reported for 30 s after the lock, the session is ended. From the third
/// failure within 60 s the next start waits, 0.5 s and twice as long at each failure up to
/// 8 s: an agent that attaches and dies at once (or a child who kills it in a loop) is not
/// restarted a dozen times a second.
public struct AgentSupervision: Sendable {
    public enum Action: Sendable, Equatable, CustomStringConvertible {
        /// Start an agent for the session (none runs).
        case startAgent
        /// End the running agent (it stopped reporting), then start another.
        case replaceAgent
        /// Lock the session through logind (`LockSession`).
        case lockSession
        /// End the session through logind (`TerminateSession`).
        case terminateSession

        public var description: String {
            switch self {
            case .startAgent: "start the agent"
            case .replaceAgent: "replace the agent that stopped reporting"
            case .lockSession: "lock the session"
            case .terminateSession: "end the session"
            }
        }
    }

    public static let failuresBeforeLock = 3
    public static let failureWindow: TimeInterval = 60
    public static let silenceLimit: TimeInterval = 5
    public static let lockGrace: TimeInterval = 30
    public static let firstBackoff: TimeInterval = 0.5
    public static let longestBackoff: TimeInterval = 8

    /// When recent agents failed (within `failureWindow`).
    public private(set) var failures: [Date] = []
    /// Whether an agent process runs for the session now.
    public private(set) var agentRunning = false
    /// The last time the running agent reported (its start counts as one).
    public private(set) var lastReport: Date?
    /// When the daemon locked the session because it could not enforce it (nil: not locked by us).
    public private(set) var lockedAt: Date?
    /// Set once the session was ended: nothing more to do.
    public private(set) var terminated = false
    /// When a start that waits (failures kept coming) is due; nil when none waits.
    public private(set) var restartAt: Date?

    public init() {}

    /// The session became active: an agent is needed.
    public mutating func sessionActivated(at time: Date) -> [Action] {
        guard !terminated, !agentRunning, restartAt == nil else { return [] }
        return [.startAgent]
    }

    public mutating func agentStarted(at time: Date) {
        agentRunning = true
        lastReport = time
        restartAt = nil
    }

    /// The agent said something (a report, a heartbeat): it is alive and enforcing.
    /// A session locked for want of an agent stays locked (the child unlocks it as
    /// usual), but is no longer on its way to being ended.
    public mutating func agentReported(at time: Date) {
        lastReport = time
        lockedAt = nil
    }

    /// The agent ended (died, was killed, lost its X connection): a failure.
    public mutating func agentEnded(at time: Date) -> [Action] {
        agentRunning = false
        return failed(at: time, replacing: false)
    }

    /// Called at `nextDeadline()` (and whenever convenient): a silent agent, or a lock
    /// that did not bring enforcement back in time.
    public mutating func check(at time: Date) -> [Action] {
        guard !terminated else { return [] }
        if let lockedAt, time.timeIntervalSince(lockedAt) >= Self.lockGrace {
            terminated = true
            return [.terminateSession]
        }
        if !agentRunning, let restartAt, time >= restartAt {
            self.restartAt = nil
            return [.startAgent]
        }
        if agentRunning, let lastReport, time.timeIntervalSince(lastReport) >= Self.silenceLimit {
            // Silent for 5 s: as good as dead, and the session is unenforced meanwhile.
            var actions = failed(at: time, replacing: true)
            if lockedAt == nil {
                lockedAt = time
                actions.insert(.lockSession, at: 0)
            }
            return actions
        }
        return []
    }

    /// When `check(at:)` must run next (nil: nothing pending).
    public func nextDeadline() -> Date? {
        guard !terminated else { return nil }
        var deadlines: [Date] = []
        if let lockedAt { deadlines.append(lockedAt.addingTimeInterval(Self.lockGrace)) }
        if !agentRunning, let restartAt { deadlines.append(restartAt) }
        if agentRunning, let lastReport { deadlines.append(lastReport.addingTimeInterval(Self.silenceLimit)) }
        return deadlines.min()
    }

    private mutating func failed(at time: Date, replacing: Bool) -> [Action] {
        guard !terminated else { return [] }
        failures = failures.filter { time.timeIntervalSince($0) < Self.failureWindow } + [time]
        var actions: [Action] = []
        if failures.count >= Self.failuresBeforeLock, lockedAt == nil {
            lockedAt = time
            actions.append(.lockSession)
        }
        // Keep trying: an agent that comes back in time saves the session. (A silent agent is
        // replaced at once: it was given 5 s already.)
        if replacing {
            actions.append(.replaceAgent)
            lastReport = time
        } else if failures.count >= Self.failuresBeforeLock {
            let doublings = Double(failures.count - Self.failuresBeforeLock)
            restartAt = time.addingTimeInterval(min(Self.firstBackoff * pow(2, doublings), Self.longestBackoff))
        } else {
            actions.append(.startAgent)
        }
        return actions
    }
}
