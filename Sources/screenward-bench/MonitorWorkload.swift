import DeviceActivity
import Foundation
import ManagedSettings
import ScreenwardCore
import SessionHarness
import Synchronization

/// The monitor benchmark's synthetic world: applications in categories, a focus
/// timeline, and activities whose events mix applications and categories. All of
/// it follows from one seed.
struct MonitorWorkload {
    static let categoryNames = [
        "Game", "Office", "Development", "Network", "AudioVideo", "Graphics", "Education", "Utility",
    ]

    struct Application {
        var identity: AppIdentity
        var token: ApplicationToken
    }

    let minter = TokenMinter(secret: DeviceSecret(bytes: Array(repeating: 42, count: DeviceSecret.byteCount)))
    let applications: [Application]
    /// Every application's category is its desktop entry's first category.
    let categories: ApplicationCategories

    init(applicationCount: Int) {
        let minter = self.minter
        applications = (0..<applicationCount).map { index in
            let category = Self.categoryNames[index % Self.categoryNames.count]
            let identity = AppIdentity(
                key: .desktopEntry("org.example.App\(index).desktop"), displayName: "App \(index)",
                categories: [category])
            return Application(identity: identity, token: minter.applicationToken(for: identity))
        }
        categories = ApplicationCategories { facts in
            facts.entryCategories.first.map { [minter.categoryToken(forCategory: $0)] } ?? []
        }
    }

    func categoryToken(_ index: Int) -> ActivityCategoryToken {
        minter.categoryToken(forCategory: Self.categoryNames[index % Self.categoryNames.count])
    }

    /// A dwell on one application: mostly short, sometimes long, now and then very long.
    static func dwell(_ random: inout SplitMix) -> TimeInterval {
        let roll = random.next() % 100
        if roll < 70 { return random.uniform(2...120) }
        if roll < 95 { return random.uniform(120...900) }
        return random.uniform(900...3600)
    }

    /// The next application to take the focus, never the one that has it.
    func nextApplication(after current: Int?, _ random: inout SplitMix) -> Int {
        var next = Int(random.next() % UInt64(applications.count))
        if next == current { next = (next + 1) % applications.count }
        return next
    }

    /// A week (or `span`) of focus before `end`, written to the ledger as the agent would.
    func writeHistory(to ledger: Ledger, span: TimeInterval, before end: Date, _ random: inout SplitMix) throws -> Int {
        let session = try ledger.beginAgentSession(pid: 1, display: ":bench", at: end.addingTimeInterval(-span))
            .sessionID
        var time = end.addingTimeInterval(-span)
        var current: Int?
        var count = 0
        while true {
            let dwell = Self.dwell(&random)
            guard time.addingTimeInterval(dwell) < end else { break }
            let index = nextApplication(after: current, &random)
            current = index
            let app = applications[index]
            let id = try ledger.openInterval(sessionID: session, app: app.identity, token: app.token, startingAt: time)
            try ledger.closeInterval(id, duration: .seconds(dwell), reason: .focusChange)
            time.addTimeInterval(dwell)
            count += 1
        }
        try ledger.endAgentSession(session, at: time, reason: "bench")
        return count
    }

    /// Activity `index`: a daily interval of 3 to 12 hours starting between midnight
    /// and noon, a warning on every third one.
    func schedule(_ index: Int, _ random: inout SplitMix) -> DeviceActivitySchedule {
        let startHour = Int(random.next() % 12)
        let startMinute = Int(random.next() % 4) * 15
        let endHour = startHour + 3 + Int(random.next() % 10)
        return DeviceActivitySchedule(
            intervalStart: DateComponents(hour: startHour, minute: startMinute),
            intervalEnd: DateComponents(hour: endHour, minute: startMinute), repeats: true,
            warningTime: index % 3 == 0 ? DateComponents(minute: 10) : nil)
    }

    /// Events of one to four applications and up to two categories, with thresholds
    /// from ten minutes to four hours, so some are crossed and some never are.
    func events(count: Int, _ random: inout SplitMix) -> [DeviceActivityEvent.Name: DeviceActivityEvent] {
        var events: [DeviceActivityEvent.Name: DeviceActivityEvent] = [:]
        for index in 0..<count {
            let listed = Set(
                (0..<(1 + random.next() % 4)).map { _ in
                    applications[Int(random.next() % UInt64(applications.count))].token
                })
            let categories = Set((0..<(random.next() % 3)).map { _ in categoryToken(Int(random.next() % 8)) })
            let minutes = Int(10 + random.next() % 231)
            events[DeviceActivityEvent.Name("event\(index)")] = DeviceActivityEvent(
                applications: listed, categories: categories, threshold: DateComponents(minute: minutes),
                includesPastActivity: random.next() % 2 == 0)
        }
        return events
    }
}

extension SplitMix {
    /// A uniform value in `range`.
    mutating func uniform(_ range: ClosedRange<Double>) -> Double {
        range.lowerBound + Double(next() >> 11) / Double(1 << 53) * (range.upperBound - range.lowerBound)
    }
}

/// The inner sink of the benchmark's LiveUsage: hands out ids and keeps nothing, so
/// the figures are LiveUsage's and the engine's, not the ledger writer's.
final class DiscardingSink: UsageSink, Sendable {
    private let nextID = Atomic<Int64>(1)

    func intervalOpened(app: AppIdentity, token: ApplicationToken, site: Website?, at start: Date) throws -> Int64 {
        nextID.add(1, ordering: .relaxed).oldValue
    }

    func intervalCheckpointed(_ id: Int64, duration: Duration) throws {}
    func intervalClosed(_ id: Int64, duration: Duration, reason: IntervalEndReason) throws {}
}
