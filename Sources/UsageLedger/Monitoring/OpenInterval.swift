import Foundation

/// An interval the engine has taken up. From then on its instants are fixed, so a
/// later time-zone change cannot move (and re-fire) it.
///
/// Besides what fired (what the ledger records), it keeps the same as bits, and
/// its events' latest usage measurements: the engine consults both for every event
/// on every focus change, where hashing callback names or asking the usage source
/// again would cost more than everything else.
struct OpenInterval: Sendable, Equatable {
    var interval: DateInterval
    /// What has fired for it, as the ledger records it.
    private(set) var fired: Set<FiringKey>
    /// Interval callbacks fired: one bit per kind (`Kind.bit`).
    private var intervalBits: UInt8 = 0
    /// Event callbacks fired, by the event's index in its run: one bit per kind.
    private var eventBits: [UInt8] = []
    /// The latest usage measured of each event (by index) in this interval.
    var measured: [UsageMark?] = []

    /// As read back from the ledger; `index(by:)` must follow before the engine uses it.
    init(interval: DateInterval, fired: Set<FiringKey>) {
        self.interval = interval
        self.fired = fired
    }

    /// Lays out the bits and measurements for the run's events, in their order.
    mutating func index(by events: [WatchedEvent]) {
        intervalBits = 0
        eventBits = Array(repeating: 0, count: events.count)
        measured = Array(repeating: nil, count: events.count)
        let indexByName = Dictionary(
            events.enumerated().map { ($1.name.rawValue, $0) }, uniquingKeysWith: { first, _ in first })
        for key in fired {
            if key.kind.isIntervalCallback {
                intervalBits |= key.kind.bit
            } else if let index = indexByName[key.event] {
                eventBits[index] |= key.kind.bit
            }
        }
    }

    func hasFired(_ kind: MonitorCallback.Kind) -> Bool {
        intervalBits & kind.bit != 0
    }

    func hasFired(_ kind: MonitorCallback.Kind, event index: Int) -> Bool {
        eventBits[index] & kind.bit != 0
    }

    /// The same interval with the same callbacks fired: the bits follow from `fired`,
    /// and the measurements are a cache.
    static func == (a: OpenInterval, b: OpenInterval) -> Bool {
        a.interval == b.interval && a.fired == b.fired
    }

    /// Records a callback as fired; `eventIndex` is its event's index in the run.
    mutating func markFired(_ key: FiringKey, eventIndex: Int?) {
        fired.insert(key)
        if let eventIndex {
            eventBits[eventIndex] |= key.kind.bit
        } else {
            intervalBits |= key.kind.bit
        }
    }
}

/// One callback of one interval: the kind, and the event's name ("" for interval callbacks).
struct FiringKey: Hashable, Sendable {
    var kind: MonitorCallback.Kind
    var event: String

    static func interval(_ kind: MonitorCallback.Kind) -> FiringKey { FiringKey(kind: kind, event: "") }
}

/// An event's usage, measured from its counting start up to `at`.
///
/// Usage grows by at most a second per second (`EventUsageSource` promises it), so
/// a measurement bounds the usage at any later instant: `used + (later - at)`. While
/// that bound stays below every level the event still waits for, nothing can have
/// been reached, and the source need not be asked.
struct UsageMark: Sendable {
    var at: Date
    var used: TimeInterval

    /// Usage credited a little after the fact (the X server stamps a focus change a
    /// few milliseconds before the agent hears of it, and the agent may fall behind)
    /// can add to a span already measured; this much slack absorbs it.
    static let margin: TimeInterval = 2

    /// Whether the usage up to `upTo` certainly stays below `target`. A clock set
    /// back (`upTo` before the measurement) proves nothing.
    func staysBelow(_ target: TimeInterval, upTo: Date) -> Bool {
        upTo >= at && used + upTo.timeIntervalSince(at) + Self.margin < target
    }
}

extension MonitorCallback.Kind {
    /// The kind's bit in a fired-callbacks mask.
    var bit: UInt8 {
        switch self {
        case .intervalWillStartWarning: 1 << 0
        case .intervalDidStart: 1 << 1
        case .eventWillReachThresholdWarning: 1 << 2
        case .eventDidReachThreshold: 1 << 3
        case .intervalWillEndWarning: 1 << 4
        case .intervalDidEnd: 1 << 5
        }
    }
}
