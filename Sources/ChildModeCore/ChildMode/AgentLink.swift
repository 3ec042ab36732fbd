import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenTimeOwner
import ScreenTimePolicy
import ScreenwardBasics
import ScreenwardIPC
import UsageLedger

/// What a managed session's agent reports to the daemon about usage: its accountant's
/// writes, numbered by the agent (so it never waits for a reply), sent as they happen.
/// The daemon writes them to the managed user's ledger (see `AgentIntervals`).
public enum AgentUsageReport: Sendable, Hashable, Codable {
    case opened(interval: Int64, app: AppIdentity, token: ApplicationToken, start: Date, site: Website? = nil)
    case checkpointed(interval: Int64, duration: Duration)
    case closed(interval: Int64, duration: Duration, reason: IntervalEndReason)
}

/// The daemon's side of one agent's intervals: each report is passed on to the managed
/// user's usage (the ledger and the engine's view), and when the agent's connection
/// drops, whatever it had open is closed at that instant, counted on the daemon's own
/// monotonic clock from the agent's last word about it. A `kill -9` thus loses only the
/// time a report takes to arrive, not the agent's one-second checkpoint.
public final class AgentIntervals {
    private let sink: any UsageSink
    private let report: (String) -> Void

    private struct Open {
        var ledgerID: Int64
        var app: AppIdentity
        var token: ApplicationToken
        var start: Date
        /// The duration the agent last reported, and when that report arrived.
        var duration: Duration
        var heardAt: ContinuousClock.Instant
    }
    private var open: [Int64: Open] = [:]

    /// What a dropped agent had open, for its successor: if the new agent's first
    /// interval is the same application, it starts when the old one was cut, so the
    /// restart's fraction of a second is not lost.
    public struct Handover: Sendable, Equatable {
        public var app: AppIdentity
        public var token: ApplicationToken
        /// When the connection dropped, on the wall clock.
        public var cutAt: Date
    }

    /// How long after a drop a successor's same interval still continues it.
    public static let handoverWindow: TimeInterval = 5
    private var handover: Handover?

    public init(sink: any UsageSink, continuing handover: Handover? = nil, report: @escaping (String) -> Void) {
        self.sink = sink
        self.handover = handover
        self.report = report
    }

    /// How many intervals the agent has open now.
    public var openCount: Int { open.count }

    public func apply(_ usage: AgentUsageReport, at now: ContinuousClock.Instant) {
        do {
            switch usage {
            case .opened(let interval, let app, let token, var start, let site):
                guard open[interval] == nil else {
                    return report("the agent opened interval \(interval) twice; the second is ignored")
                }
                if let handover, handover.app == app, handover.token == token, start >= handover.cutAt,
                    start.timeIntervalSince(handover.cutAt) <= Self.handoverWindow
                {
                    start = handover.cutAt
                }
                handover = nil
                let id = try sink.intervalOpened(app: app, token: token, site: site, at: start)
                open[interval] = Open(ledgerID: id, app: app, token: token, start: start, duration: .zero, heardAt: now)
            case .checkpointed(let interval, let duration):
                guard var entry = open[interval] else {
                    return report("the agent checkpointed interval \(interval), which is not open")
                }
                guard duration >= entry.duration else {
                    return report("the agent moved interval \(interval) backwards; ignored")
                }
                try sink.intervalCheckpointed(entry.ledgerID, duration: duration)
                entry.duration = duration
                entry.heardAt = now
                open[interval] = entry
            case .closed(let interval, let duration, let reason):
                guard let entry = open.removeValue(forKey: interval) else {
                    return report("the agent closed interval \(interval), which is not open")
                }
                try sink.intervalClosed(entry.ledgerID, duration: max(duration, entry.duration), reason: reason)
            }
        } catch {
            report("could not record the agent's usage (\(error))")
        }
    }

    /// The agent is gone: each open interval ends now. Returns what the next agent may
    /// continue (the interval that was counting, if any).
    @discardableResult
    public func agentGone(at now: ContinuousClock.Instant) -> Handover? {
        var handover: Handover?
        for entry in open.values.sorted(by: { $0.ledgerID < $1.ledgerID }) {
            let duration = entry.duration + (now - entry.heardAt)
            do {
                try sink.intervalClosed(entry.ledgerID, duration: duration, reason: .connectionLost)
            } catch {
                report("could not close interval \(entry.ledgerID) after the agent left (\(error))")
            }
            let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
            handover = Handover(app: entry.app, token: entry.token, cutAt: entry.start.addingTimeInterval(seconds))
        }
        open.removeAll()
        return handover
    }
}

/// The agent's side: its accountant writes here in a managed session, and each write
/// leaves as a report at once (`send` queues the line on the daemon connection). Ids
/// are the agent's own, so the accountant never waits for the daemon.
public final class AgentReportSink: UsageSink {
    private let send: (AgentUsageReport) -> Void
    private var nextInterval: Int64 = 1

    public init(send: @escaping (AgentUsageReport) -> Void) {
        self.send = send
    }

    public func intervalOpened(app: AppIdentity, token: ApplicationToken, site: Website?, at start: Date) -> Int64 {
        defer { nextInterval += 1 }
        send(.opened(interval: nextInterval, app: app, token: token, start: start, site: site))
        return nextInterval
    }

    public func intervalCheckpointed(_ id: Int64, duration: Duration) {
        send(.checkpointed(interval: id, duration: duration))
    }

    public func intervalClosed(_ id: Int64, duration: Duration, reason: IntervalEndReason) {
        send(.closed(interval: id, duration: duration, reason: reason))
    }
}

/// A managed session's agent asks to be attached to its session.
public struct AgentAttach: Sendable, Hashable, Codable {
    public var session: String
    public init(session: String) { self.session = session }
}

/// What the agent needs to track and shield for the managed user: who they are, and
/// the device secret their tokens are minted with (the daemon's, in its state).
public struct AgentAttachment: Sendable, Hashable, Codable {
    public var user: String
    public var uid: UInt32
    public var deviceSecret: [UInt8]
    public var idleThresholdSeconds: Double
    /// The language the managed user's session speaks, as their session last told the
    /// daemon (`ChildMethods.sessionLanguage`); nil before it ever has. Later changes come
    /// as `AgentLinkMethods.language`.
    public var language: String?

    public init(
        user: String, uid: UInt32, deviceSecret: [UInt8], idleThresholdSeconds: Double, language: String? = nil
    ) {
        self.user = user
        self.uid = uid
        self.deviceSecret = deviceSecret
        self.idleThresholdSeconds = idleThresholdSeconds
        self.language = language
    }
}

/// A language a session speaks (`ko`, `vi`, `en`): two or three letters, never more.
public struct SpokenLanguage: Sendable, Hashable, Codable {
    public var language: String
    public init(language: String) { self.language = language }
}

public struct AgentPresence: Sendable, Hashable, Codable {
    public var present: Bool
    public init(present: Bool) { self.present = present }
}

/// The link between the daemon and a managed session's agent. Only the process the
/// daemon started for that session, running as the agents' system user, may attach;
/// after that, the agent's lines are reports that need no reply.
public enum AgentLinkMethods {
    public static let attach = ServiceMethod<AgentAttach, AgentAttachment>("agent.attach")
    /// Agent → daemon.
    public static let usage = PushKind<AgentUsageReport>("agent.usage")
    public static let presence = PushKind<AgentPresence>("agent.presence")
    /// Once a second: the agent is alive and its X connection answers.
    public static let alive = PushKind<Empty>("agent.alive")
    public static let covered = PushKind<[CoveredWindow]>("agent.covered")
    /// Daemon → agent: every store that counts for the managed user, at attach and after each change.
    public static let shields = PushKind<[StoreSettings]>("agent.shields")
    /// Daemon → agent: the browsers' tabs, as the vetted hosts of the user's browsers reported
    /// them last (at the attach and after each change).
    public static let browserTabs = PushKind<[BrowserWindowsReport]>("agent.browser-tabs")
    /// Daemon → agent: the session's language changed (its tray said so); the shields speak it.
    public static let language = PushKind<SpokenLanguage>("agent.language")
    /// How often the agent says it is alive.
    public static let aliveInterval: Duration = .seconds(1)
    /// A managed agent's exit status when the X server refused it (its cookie, as a rule):
    /// in a new session's first seconds, the display manager has not written this one's yet.
    public static let displayRefusedStatus: Int32 = 3
}
