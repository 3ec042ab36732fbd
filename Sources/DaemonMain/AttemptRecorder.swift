import Foundation

/// Records a kind of attempt once per user per `interval`, however often it repeats: a
/// child's flood of connections is one event a minute in their guardians' list, not a
/// thousand (the rest are counted and told in the next one).
struct AttemptRecorder {
    let interval: TimeInterval
    private var last: [Key: (at: Date, since: Int)] = [:]

    private struct Key: Hashable {
        var uid: UInt32
        var kind: String
    }

    init(interval: TimeInterval = 60) {
        self.interval = interval
    }

    /// Whether this attempt is to be recorded now, and how many like it were not since the
    /// last one that was.
    mutating func shouldRecord(_ kind: String, uid: UInt32, at now: Date = Date()) -> (record: Bool, skipped: Int) {
        let key = Key(uid: uid, kind: kind)
        if let previous = last[key], now.timeIntervalSince(previous.at) < interval, now >= previous.at {
            last[key] = (previous.at, previous.since + 1)
            return (false, 0)
        }
        let skipped = last[key]?.since ?? 0
        last[key] = (now, 0)
        return (true, skipped)
    }
}
