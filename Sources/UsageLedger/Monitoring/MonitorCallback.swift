import DeviceActivity
import Foundation

/// An activity as the engine runs it: what `DeviceActivityCenter.startMonitoring`
/// registered, for which client, and when.
public struct MonitoredActivity: Sendable, Equatable {
    /// The client that registered it (a bundle identifier such as `org.example.worklog`).
    /// Activity names are per client: two apps may both monitor "daily".
    public var owner: String
    public var name: DeviceActivityName
    public var schedule: DeviceActivitySchedule
    public var events: [DeviceActivityEvent.Name: DeviceActivityEvent]
    /// When this registration was made. Usage before it counts only for events with
    /// `includesPastActivity`, and nothing scheduled before it is ever due.
    public var registeredAt: Date

    public init(
        owner: String, name: DeviceActivityName, schedule: DeviceActivitySchedule,
        events: [DeviceActivityEvent.Name: DeviceActivityEvent] = [:], registeredAt: Date
    ) {
        self.owner = owner
        self.name = name
        self.schedule = schedule
        self.events = events
        self.registeredAt = registeredAt
    }

    /// Events in a fixed order, so every run evaluates (and reports) them alike.
    var sortedEvents: [(name: DeviceActivityEvent.Name, event: DeviceActivityEvent)] {
        events.sorted { $0.key.rawValue < $1.key.rawValue }.map { ($0.key, $0.value) }
    }
}

/// One `DeviceActivityMonitor` callback that has become due.
///
/// Unlike Apple's callbacks, each one says which interval it belongs to and when it
/// was meant to happen, so a late or replayed callback cannot pass for today's.
public struct MonitorCallback: Sendable, Equatable, CustomStringConvertible {
    /// The six callbacks; the order of the cases is the order of callbacks due at the same instant.
    public enum Kind: String, Sendable, CaseIterable, Comparable {
        case intervalWillStartWarning
        case intervalDidStart
        case eventWillReachThresholdWarning
        case eventDidReachThreshold
        case intervalWillEndWarning
        case intervalDidEnd

        /// Interval callbacks follow Apple's "device in use" rule: they wait for the person.
        public var isIntervalCallback: Bool { !isEventCallback }
        public var isEventCallback: Bool { self == .eventWillReachThresholdWarning || self == .eventDidReachThreshold }

        var rank: Int { Self.allCases.firstIndex(of: self)! }
        public static func < (a: Kind, b: Kind) -> Bool { a.rank < b.rank }
    }

    public var owner: String
    public var activity: DeviceActivityName
    public var kind: Kind
    /// The event, for the two event callbacks.
    public var event: DeviceActivityEvent.Name?
    /// The interval the callback belongs to, with the instants it had when it began.
    public var interval: DateInterval
    /// When the callback was due: the schedule's instant, the threshold crossing, or
    /// the registration that made it due at once.
    public var scheduledAt: Date
    /// When the engine handed it out.
    public var deliveredAt: Date

    /// More than this between due and delivery makes a callback late.
    public static let latenessTolerance: TimeInterval = 1

    /// Whether it comes late: after a restart, a clock jump, a suspend, or while
    /// waiting for the person to come back.
    public var isLate: Bool { deliveredAt.timeIntervalSince(scheduledAt) > Self.latenessTolerance }

    public init(
        owner: String, activity: DeviceActivityName, kind: Kind, event: DeviceActivityEvent.Name?,
        interval: DateInterval, scheduledAt: Date, deliveredAt: Date
    ) {
        self.owner = owner
        self.activity = activity
        self.kind = kind
        self.event = event
        self.interval = interval
        self.scheduledAt = scheduledAt
        self.deliveredAt = deliveredAt
    }

    public var description: String {
        let what = event.map { "\(kind.rawValue)(\($0.rawValue))" } ?? kind.rawValue
        let late = isLate ? " late" : ""
        return "\(owner)/\(activity.rawValue) \(what) for \(interval.start)–\(interval.end) at \(scheduledAt)\(late)"
    }
}
