import DeviceActivity
import Foundation

/// When an event's usage reaches a level: found in the past, predicted in the future.
enum ThresholdCrossing {
    /// Usage this close to the level has reached it: sums of floating-point seconds
    /// land a hair under a level they reach exactly.
    static let tolerance: TimeInterval = 0.000_5
    /// A crossing found in the past is placed at most this late.
    static let precision: TimeInterval = 0.001

    /// The instant usage counted from `from` reached `level`, if it has by `upTo`.
    ///
    /// Usage grows by at most a second per second, so the crossing lies between
    /// `from + level` and `upTo` minus the excess; inside that a bisection finds it.
    /// A crossing met on time (the engine woke at its prediction) costs one extra query.
    /// `used`, when given, is the usage from `from` to `upTo`, already measured.
    static func find(
        level: TimeInterval, from: Date, upTo: Date, used measured: TimeInterval? = nil, usage: any EventUsage
    ) -> Date? {
        guard upTo >= from else { return nil }
        let target = level - tolerance
        if target <= 0 { return from }  // nothing to reach: reached as counting starts
        let used = measured ?? usage.focusedSeconds(from: from, to: upTo)
        guard used >= target else { return nil }
        var high = max(from, upTo.addingTimeInterval(-max(0, used - level)))
        var low = min(high, from.addingTimeInterval(target))
        if usage.focusedSeconds(from: from, to: high) < target { return upTo }  // a source not quite monotonic
        if high.timeIntervalSince(low) <= precision { return high }
        if usage.focusedSeconds(from: from, to: high.addingTimeInterval(-precision)) < target {
            return high
        }
        while high.timeIntervalSince(low) > precision {
            let middle = low.addingTimeInterval(high.timeIntervalSince(low) / 2)
            if usage.focusedSeconds(from: from, to: middle) >= target {
                high = middle
            } else {
                low = middle
            }
        }
        return high
    }

    /// When usage counted from `from` will reach `level` if the focus stays as it
    /// is at `now`; nil while the event is not accruing.
    static func predict(level: TimeInterval, from: Date, now: Date, usage: any EventUsage) -> Date? {
        let rate = usage.accrualRate(at: now)
        guard rate > 0 else { return nil }
        let start = max(now, from)
        let used = start > from ? usage.focusedSeconds(from: from, to: start) : 0
        return predict(level: level, start: start, used: used, rate: rate)
    }

    /// The same, from usage `used` measured up to `start` (not before `now`) and the
    /// positive `rate` at `now`.
    static func predict(level: TimeInterval, start: Date, used: TimeInterval, rate: Double) -> Date {
        start.addingTimeInterval(max(0, level - used) / rate)
    }
}
