/// One application's closed focus intervals, kept so that the focused time inside
/// any window `[from, to)` costs two binary searches, not a walk over a week.
///
/// Times are seconds since the reference date (`Date.timeIntervalSinceReferenceDate`):
/// plain numbers compare and subtract faster than `Date`s, and these run on every
/// focus change.
///
/// Invariant: intervals are sorted by start and do not overlap, so their ends are
/// sorted too, and `prefix[k]` (the summed length of the first `k`) lets a window
/// be summed from its two edges.
struct FocusHistory: Sendable {
    private(set) var starts: [Double] = []
    private(set) var ends: [Double] = []
    /// `prefix[k]` is the summed length of intervals `0..<k`; one longer than `starts`.
    private var prefix: [Double] = [0]

    var count: Int { starts.count }
    var isEmpty: Bool { starts.isEmpty }

    /// Adds `[start, end)`; an empty or backward interval adds nothing.
    ///
    /// Intervals come in order from the accountant, so this is an append. A wall
    /// clock set back can make a new interval start before an old one ends; then the
    /// history is rebuilt as the union of both, so the same wall time never counts
    /// twice and the invariant holds (rare, and linear in the history).
    mutating func add(start: Double, end: Double) {
        guard end > start else { return }
        if let lastEnd = ends.last, start < lastEnd {
            merge(start: start, end: end)
            return
        }
        starts.append(start)
        ends.append(end)
        prefix.append(prefix[prefix.count - 1] + (end - start))
    }

    /// Focused seconds inside `[from, to)`.
    func seconds(from: Double, to: Double) -> Double {
        guard to > from, !starts.isEmpty else { return 0 }
        let first = firstIndex(in: ends, above: from)  // the first interval ending after `from`
        let past = firstIndex(in: starts, atLeast: to)  // the first interval starting at or after `to`
        guard first < past else { return 0 }
        let whole = prefix[past] - prefix[first]
        let clippedBefore = max(0, from - starts[first])
        let clippedAfter = max(0, ends[past - 1] - to)
        return max(0, whole - clippedBefore - clippedAfter)
    }

    /// Drops intervals that ended at or before `cutoff`. The prefix sums keep
    /// working as differences, so nothing is recomputed.
    mutating func forget(endingBy cutoff: Double) {
        let dropped = firstIndex(in: ends, above: cutoff)
        guard dropped > 0 else { return }
        starts.removeFirst(dropped)
        ends.removeFirst(dropped)
        prefix.removeFirst(dropped)
    }

    // MARK: Private

    private mutating func merge(start: Double, end: Double) {
        var spans = zip(starts, ends).map { (start: $0, end: $1) }
        spans.append((start, end))
        spans.sort { $0.start < $1.start }
        self = FocusHistory()
        var current = spans[0]
        for span in spans.dropFirst() {
            if span.start < current.end {
                current.end = max(current.end, span.end)
            } else {
                add(start: current.start, end: current.end)
                current = span
            }
        }
        add(start: current.start, end: current.end)
    }

    /// The first index whose value is greater than `value` (values sorted).
    private func firstIndex(in values: [Double], above value: Double) -> Int {
        var low = 0
        var high = values.count
        while low < high {
            let middle = (low + high) / 2
            if values[middle] > value { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// The first index whose value is at least `value` (values sorted).
    private func firstIndex(in values: [Double], atLeast value: Double) -> Int {
        var low = 0
        var high = values.count
        while low < high {
            let middle = (low + high) / 2
            if values[middle] >= value { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
