import Foundation
import UsageLedger

/// One stretch of an application's use, as the ledger holds it.
public struct RecordedUse: Sendable, Equatable {
    /// The ledger's token of the application.
    public var token: String
    public var start: Date
    public var end: Date
    public var endReason: IntervalEndReason?
    /// The website (registrable domain) the application's window showed, if any.
    public var webDomain: String?

    public init(token: String, start: Date, end: Date, endReason: IntervalEndReason?, webDomain: String? = nil) {
        self.token = token
        self.start = start
        self.end = end
        self.endReason = endReason
        self.webDomain = webDomain
    }
}

/// Cuts recorded use into a report's segments.
///
/// **Pickups.** A pickup is the start of use after the computer was not in use: the
/// first recorded use, use after one that ended because the session went idle, was
/// locked or suspended, or use that starts more than `pickupGap` after the previous one
/// ended (whatever the reason: the agent stopped, or nothing was focused). Use that
/// follows a change of focus or a clock jump within that gap continues the same
/// pickup. A pickup belongs to the application used first and to the segment it
/// starts in. The ledger records the use of applications only, so a pickup in which
/// no application was used is not seen.
///
/// **Longest activity.** A stretch of continuous use runs from a pickup to the end of
/// the last use before the next one (with a filter, of the included applications, with
/// gaps of at most `pickupGap` between them), clipped to each segment.
public struct ActivityReportBuilder: Sendable {
    public static let pickupGap: TimeInterval = 60

    public var segmentation: ActivityReport.Segmentation
    public var range: DateInterval
    public var calendar: Calendar
    public var filter: ActivityReportFilter

    public init(
        segmentation: ActivityReport.Segmentation, range: DateInterval, calendar: Calendar,
        filter: ActivityReportFilter = .init()
    ) {
        self.segmentation = segmentation
        self.range = range
        self.calendar = calendar
        self.filter = filter
    }

    /// The report of `uses` (sorted by start; use before the range only decides whether
    /// the first use in it is a pickup) for the applications in `applications` (by
    /// ledger token; use of a token missing there is left out).
    public func build(uses: [RecordedUse], applications: [String: ActivityReport.Application], lastUpdated: Date) throws
        -> ActivityReport
    {
        let bounds = try ReportSegments.boundaries(
            of: segmentation, from: range.start, to: range.end, calendar: calendar)
        var segments = bounds.map { SegmentTally(bounds: $0) }
        var previous: RecordedUse?
        var run: DateInterval?
        var lastIncludedEnd: Date?
        var used: [String: ActivityReport.Application] = [:]

        func closeRun() {
            guard let stretch = run else { return }
            for index in Self.segmentIndices(overlapping: stretch, in: bounds) { segments[index].offerStretch(stretch) }
            run = nil
        }

        for use in uses {
            let isPickup = Self.startsPickup(use, after: previous)
            previous = use
            guard let application = applications[use.token] else { continue }
            // A use counts for its application when the filter includes it, else for its
            // website alone when the filter names it (a website's time, not its browser's).
            let forApplication = filter.includes(application)
            guard forApplication || use.webDomain.map({ filter.websites.contains($0) }) == true else { continue }
            let continuesRun =
                !isPickup && lastIncludedEnd.map { use.start.timeIntervalSince($0) <= Self.pickupGap } == true
            if continuesRun, let current = run {
                run = DateInterval(start: current.start, end: max(current.end, use.end))
            } else {
                closeRun()
                run = DateInterval(start: use.start, end: max(use.start, use.end))
            }
            lastIncludedEnd = use.end
            guard use.end > range.start, use.start < range.end else { continue }
            for index in Self.segmentIndices(overlapping: DateInterval(start: use.start, end: use.end), in: bounds) {
                let bound = bounds[index]
                let seconds = min(use.end, bound.end).timeIntervalSince(max(use.start, bound.start))
                if seconds > 0 {
                    if let domain = use.webDomain, filter.lists(website: domain) {
                        segments[index].websites[domain, default: 0] += seconds
                    }
                    if forApplication {
                        segments[index].seconds[application.id, default: 0] += seconds
                        used[application.id] = application
                    } else {
                        segments[index].websiteOnlySeconds += seconds
                    }
                }
                if isPickup, bound.start <= use.start, use.start < bound.end {
                    if forApplication {
                        segments[index].pickups[application.id, default: 0] += 1
                        used[application.id] = application
                    } else {
                        segments[index].websiteOnlyPickups += 1
                    }
                    segments[index].firstPickup = min(segments[index].firstPickup ?? use.start, use.start)
                }
            }
        }
        closeRun()
        return ActivityReport(
            segmentation: segmentation, since: range.start, until: range.end, timeZone: calendar.timeZone.identifier,
            lastUpdated: lastUpdated, applications: used.values.sorted { $0.id < $1.id },
            segments: segments.map(\.segment))
    }

    /// Whether `use` begins a pickup, given the use recorded just before it.
    static func startsPickup(_ use: RecordedUse, after previous: RecordedUse?) -> Bool {
        guard let previous else { return true }
        switch previous.endReason {
        case .idle, .locked, .suspend: return true
        default: return use.start.timeIntervalSince(previous.end) > pickupGap
        }
    }

    /// The indices of the segments `interval` meets (segments are sorted and adjacent).
    static func segmentIndices(overlapping interval: DateInterval, in bounds: [DateInterval]) -> Range<Int> {
        // The first segment that ends after the interval starts, by binary search.
        var low = 0
        var high = bounds.count
        while low < high {
            let middle = (low + high) / 2
            if bounds[middle].end <= interval.start { low = middle + 1 } else { high = middle }
        }
        var upper = low
        while upper < bounds.count,
            bounds[upper].start < interval.end || (interval.duration == 0 && bounds[upper].start <= interval.start)
        {
            upper += 1
        }
        return low..<max(low, upper)
    }
}

/// A segment while the builder adds to it.
private struct SegmentTally {
    let bounds: DateInterval
    var seconds: [String: Double] = [:]
    var pickups: [String: Int] = [:]
    var websites: [String: Double] = [:]
    /// Time and pickups of websites a filter names, in applications it does not include.
    var websiteOnlySeconds: Double = 0
    var websiteOnlyPickups = 0
    var firstPickup: Date?
    var longest: DateInterval?

    init(bounds: DateInterval) { self.bounds = bounds }

    mutating func offerStretch(_ stretch: DateInterval) {
        let start = max(stretch.start, bounds.start)
        let end = min(stretch.end, bounds.end)
        guard end > start else { return }
        if longest.map({ end.timeIntervalSince(start) > $0.duration }) ?? true {
            longest = DateInterval(start: start, end: end)
        }
    }

    var segment: ActivityReport.Segment {
        let ids = Set(seconds.keys).union(pickups.keys)
        let uses = ids.map {
            ActivityReport.ApplicationUse(application: $0, seconds: seconds[$0] ?? 0, pickups: pickups[$0] ?? 0)
        }
        .sorted { $0.seconds != $1.seconds ? $0.seconds > $1.seconds : $0.application < $1.application }
        return ActivityReport.Segment(
            start: bounds.start, end: bounds.end, totalSeconds: uses.reduce(0) { $0 + $1.seconds } + websiteOnlySeconds,
            pickups: pickups.values.reduce(0, +) + websiteOnlyPickups, firstPickup: firstPickup,
            longestActivity: longest, applications: uses,
            websites: websites.map { ActivityReport.WebsiteUse(domain: $0.key, seconds: $0.value) }
                .sorted { $0.seconds != $1.seconds ? $0.seconds > $1.seconds : $0.domain < $1.domain })
    }
}
