import Foundation

/// Records a kind of attempt once per user per `interval`, however often it repeats: a
/// child's flood of connections, or a window re-mapped in a loop, is one event a minute in
/// their guardians' list, not a thousand. How many came after the one recorded is told once
/// the minute is over (`due`), so a loop that stops within it is still counted. A policy
/// over times the daemon passes in, tested without a clock.
public struct AttemptRecorder: Sendable {
    public let interval: TimeInterval

    public struct Key: Hashable, Sendable {
        public var uid: UInt32
        public var kind: String

        public init(uid: UInt32, kind: String) {
            self.uid = uid
            self.kind = kind
        }
    }

    /// When each key's attempt was last recorded, and how many came since.
    private var last: [Key: (at: Date, since: Int)] = [:]

    public init(interval: TimeInterval = 60) {
        self.interval = interval
    }

    /// Whether this attempt is to be recorded now (not when one like it was, less than
    /// `interval` ago: it is counted instead).
    public mutating func shouldRecord(_ kind: String, uid: UInt32, at now: Date = Date()) -> Bool {
        let key = Key(uid: uid, kind: kind)
        if let previous = last[key], now.timeIntervalSince(previous.at) < interval, now >= previous.at {
            last[key] = (previous.at, previous.since + 1)
            return false
        }
        last[key] = (now, 0)
        return true
    }

    /// The keys whose minute is over with attempts counted in it, and how many: to be told
    /// now. Those keys start afresh (the next attempt is recorded at once).
    public mutating func due(at now: Date = Date()) -> [(key: Key, count: Int)] {
        var due: [(key: Key, count: Int)] = []
        for (key, entry) in last where now.timeIntervalSince(entry.at) >= interval || now < entry.at {
            if entry.since > 0 { due.append((key, entry.since)) }
            last[key] = nil
        }
        return due.sorted { ($0.key.uid, $0.key.kind) < ($1.key.uid, $1.key.kind) }
    }

    /// When `due` has something to tell next (nil: nothing counted).
    public var nextDue: Date? {
        last.values.filter { $0.since > 0 }.map { $0.at.addingTimeInterval(interval) }.min()
    }
}
