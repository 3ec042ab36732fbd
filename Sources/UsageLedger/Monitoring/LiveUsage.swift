import DeviceActivity
import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardBasics

/// The agent's `EventUsageSource`: answers the monitor engine from memory, never
/// from SQLite, because the engine asks hundreds of questions per focus change.
///
/// It sits between the `UsageAccountant` and the real sink as a tee: every call is
/// passed on to the wrapped sink unchanged, and on the way it keeps each
/// application's closed focus intervals (a `FocusHistory`) and the open one. At
/// start it is seeded from the ledger with the last `horizon` (a week-long
/// interval, plus slack); older intervals are dropped as time goes on, so
/// questions must not reach further back than the horizon.
///
/// Membership: an application belongs to an event when its token is among the
/// event's applications, or one of its category tokens among the event's
/// categories. A website (its registrable domain's token) belongs to an event when it is
/// among the event's web domains, or its category among the event's categories; its time
/// is part of its browser's, so a browser's
/// time on a website counts once for an event that has both. An application's
/// categories are the ones it has now, for its whole history.
///
/// Time: an interval covers `[start, start + duration)`, with the accountant's wall
/// start and monotonic duration (it splits an interval when the clocks disagree,
/// so both agree inside one). The open interval counts up to the question's `to`.
///
/// Single-threaded, like the engine: the accountant and the engine run on the
/// agent's one loop.
public final class LiveUsage: UsageSink, EventUsageSource {
    /// A week-long interval, plus a day of slack.
    public static let defaultHorizon: TimeInterval = 8 * 86_400
    /// How often, at most, old intervals are dropped (dropping is linear in the history).
    static let trimEvery: TimeInterval = 3600

    public let horizon: TimeInterval
    private let sink: any UsageSink
    private let categories: ApplicationCategories
    private let websites: WebsiteTokens

    private struct Application {
        var facts: ApplicationFacts
        var categories: [ActivityCategoryToken]
        var history = FocusHistory()
    }

    /// The interval open now: its id from the sink, whose it is, since when.
    private struct Focus {
        var id: Int64
        var application: Int
        var website: WebDomainToken?
        var start: Double
    }

    /// A website's time in one application (a browser).
    private struct WebsiteKey: Hashable {
        var website: WebDomainToken
        var application: Int
    }
    private var websiteHistories: [WebsiteKey: FocusHistory] = [:]
    /// The applications each website was seen in.
    private var applicationsByWebsite: [WebDomainToken: [Int]] = [:]
    /// Each website's categories (data/categories.json), from when it was first seen.
    private var websiteCategories: [WebDomainToken: [ActivityCategoryToken]] = [:]

    /// Usage on the household's other computers (docs/household.md), by application
    /// index: one history per computer, so that their times add up (a child on two
    /// computers at once uses both), while each computer's own intervals never overlap.
    private var elsewhere: [Int: [FocusHistory]] = [:]
    private var elsewhereWebsites: [WebsiteKey: [FocusHistory]] = [:]
    private var elsewhereApplicationsByWebsite: [WebDomainToken: [Int]] = [:]

    private var applications: [Application] = []
    private var indexByToken: [ApplicationToken: Int] = [:]
    private var membersByCategory: [ActivityCategoryToken: [Int]] = [:]
    private var focus: Focus?
    private var nextTrim = -Double.infinity

    /// - Parameters:
    ///   - sink: where every call goes on to (the agent's `BackgroundLedgerSink`).
    ///   - categories: which category tokens an application has.
    ///   - horizon: how far back questions may reach; older intervals are dropped.
    public init(
        forwardingTo sink: any UsageSink, categories: ApplicationCategories, websites: WebsiteTokens = .none,
        horizon: TimeInterval = defaultHorizon
    ) {
        self.sink = sink
        self.categories = categories
        self.websites = websites
        self.horizon = horizon
    }

    // MARK: Seeding

    /// Loads the intervals of the last `horizon` before `now` from `ledger`. Call it
    /// before the accountant starts (intervals still open in the ledger, a dead
    /// agent's, count up to their last checkpoint) and before the engine's first
    /// question (the engine trusts what it has measured not to grow behind its back).
    public func seed(from ledger: Ledger, now: Date) throws {
        seed(with: try ledger.recentUsage(since: now.addingTimeInterval(-horizon)))
        forget(before: now.addingTimeInterval(-horizon))
    }

    public func seed(with recent: RecentUsage) {
        for facts in recent.applications { _ = application(for: facts) }
        for interval in recent.intervals {
            let index =
                indexByToken[interval.token]
                ?? application(for: ApplicationFacts(token: interval.token, desktopID: nil, entryCategories: []))
            let start = interval.startedAt.timeIntervalSinceReferenceDate
            applications[index].history.add(start: start, end: start + interval.duration)
            if let domain = interval.webDomain, let website = websiteToken(domain) {
                addWebsite(website, application: index, start: start, end: start + interval.duration)
            }
        }
    }

    /// Drops intervals that ended before `cutoff` (done hourly by itself, as
    /// intervals open).
    public func forget(before cutoff: Date) {
        let seconds = cutoff.timeIntervalSinceReferenceDate
        for index in applications.indices {
            applications[index].history.forget(endingBy: seconds)
        }
        for key in websiteHistories.keys {
            websiteHistories[key]?.forget(endingBy: seconds)
        }
    }

    // MARK: The household's other computers

    /// An interval of the same person's on another computer of their household.
    public struct ElsewhereSpan: Sendable {
        public var computer: String
        public var facts: ApplicationFacts
        public var start: Date
        public var duration: TimeInterval
        public var webDomain: String?

        public init(computer: String, facts: ApplicationFacts, start: Date, duration: TimeInterval, webDomain: String?)
        {
            self.computer = computer
            self.facts = facts
            self.start = start
            self.duration = duration
            self.webDomain = webDomain
        }
    }

    /// Replaces what is known of the other computers' usage with `spans` (all of it within
    /// the horizon). It adds to every event's usage from then on, in the past too: the engine
    /// must forget what it measured (`MonitorEngine.usageChangedElsewhere`).
    public func replaceElsewhere(with spans: [ElsewhereSpan]) {
        var histories: [String: [Int: FocusHistory]] = [:]
        var websiteHistories: [String: [WebsiteKey: FocusHistory]] = [:]
        var byWebsite: [WebDomainToken: Set<Int>] = [:]
        for span in spans.sorted(by: { $0.start < $1.start }) {
            // An application known here keeps the facts this computer has of it.
            let index = indexByToken[span.facts.token] ?? application(for: span.facts)
            let start = span.start.timeIntervalSinceReferenceDate
            let end = start + max(0, span.duration)
            histories[span.computer, default: [:]][index, default: FocusHistory()].add(start: start, end: end)
            if let domain = span.webDomain, let website = websiteToken(domain) {
                let key = WebsiteKey(website: website, application: index)
                websiteHistories[span.computer, default: [:]][key, default: FocusHistory()].add(start: start, end: end)
                byWebsite[website, default: []].insert(index)
            }
        }
        elsewhere = [:]
        for perComputer in histories.values {
            for (index, history) in perComputer { elsewhere[index, default: []].append(history) }
        }
        elsewhereWebsites = [:]
        for perComputer in websiteHistories.values {
            for (key, history) in perComputer { elsewhereWebsites[key, default: []].append(history) }
        }
        elsewhereApplicationsByWebsite = byWebsite.mapValues { $0.sorted() }
    }

    /// The other computers' part of `focusedSeconds(ofMembers:…)`.
    private func elsewhereSeconds(
        ofMembers members: [Int], isMember: (Int) -> Bool, websites events: Set<WebDomainToken>, from: Double,
        to: Double
    ) -> Double {
        var total = 0.0
        for index in members {
            for history in elsewhere[index] ?? [] { total += history.seconds(from: from, to: to) }
        }
        for website in events {
            for application in elsewhereApplicationsByWebsite[website] ?? [] where !isMember(application) {
                for history in elsewhereWebsites[WebsiteKey(website: website, application: application)] ?? [] {
                    total += history.seconds(from: from, to: to)
                }
            }
        }
        return total
    }

    // MARK: What it holds

    /// The application whose interval is open.
    public var focusedApplication: ApplicationToken? { focus.map { applications[$0.application].facts.token } }

    /// How many closed intervals are kept, over all applications.
    public var closedIntervalCount: Int { applications.reduce(0) { $0 + $1.history.count } }

    // MARK: UsageSink

    public func intervalOpened(app: AppIdentity, token: ApplicationToken, site: Website?, at start: Date) throws
        -> Int64
    {
        let id = try sink.intervalOpened(app: app, token: token, site: site, at: start)
        let startSeconds = start.timeIntervalSinceReferenceDate
        // The accountant closes before it opens; should a close ever be missing, the
        // old interval ends where the new one starts rather than running on.
        if let open = focus { close(open, at: max(open.start, startSeconds)) }
        focus = Focus(
            id: id, application: application(for: ApplicationFacts(token: token, identity: app)),
            website: site.flatMap { websiteToken($0.domain) },
            start: startSeconds)
        if startSeconds >= nextTrim {
            nextTrim = startSeconds + Self.trimEvery
            forget(before: start.addingTimeInterval(-horizon))
        }
        return id
    }

    /// Passed on only: the open interval counts up to each question's `to`, and the
    /// checkpoint's duration matters only to the ledger (what a crash keeps).
    public func intervalCheckpointed(_ id: Int64, duration: Duration) throws {
        try sink.intervalCheckpointed(id, duration: duration)
    }

    /// The focus ended whether or not the ledger takes the write: it is recorded
    /// here first. The accountant retries a refused close with the same id, which
    /// is then no longer open here and is only passed on.
    public func intervalClosed(_ id: Int64, duration: Duration, reason: IntervalEndReason) throws {
        if let open = focus, open.id == id {
            close(open, at: open.start + max(0, duration.seconds))
        }
        try sink.intervalClosed(id, duration: duration, reason: reason)
    }

    // MARK: EventUsageSource

    public func focusedSeconds(of event: DeviceActivityEvent, from: Date, to: Date) -> TimeInterval {
        let members = members(of: event)
        return focusedSeconds(
            ofMembers: members, isMember: { members.contains($0) }, websites: websites(of: event),
            focusIsMember: focus.map { members.contains($0.application) } ?? false,
            from: from, to: to)
    }

    public func accrualRate(of event: DeviceActivityEvent, at now: Date) -> Double {
        guard let open = focus else { return 0 }
        return accrualRate(focusIsMember: isMember(open.application, of: event), websites: websites(of: event), at: now)
    }

    /// The websites that belong to `event`: its web domains, and those of its categories.
    func websites(of event: DeviceActivityEvent) -> Set<WebDomainToken> {
        guard !event.categories.isEmpty else { return event.webDomains }
        var members = event.webDomains
        for (website, categories) in websiteCategories where categories.contains(where: event.categories.contains) {
            members.insert(website)
        }
        return members
    }

    /// The engine's way in: the event's members are worked out once, and again only
    /// when an application appears or changes its categories.
    public func usage(of event: DeviceActivityEvent) -> any EventUsage {
        LiveEventUsage(source: self, event: event)
    }

    // MARK: For LiveEventUsage

    /// Goes up whenever an application appears or its categories change, so a
    /// worked-out list of an event's members is known to be stale.
    private(set) var catalogVersion = 0

    var applicationCount: Int { applications.count }

    /// The index of the application whose interval is open.
    var focusedIndex: Int? { focus?.application }

    /// The indices of the applications that belong to `event`, each once, in order.
    func members(of event: DeviceActivityEvent) -> [Int] {
        var members: [Int] = []
        for token in event.applications {
            if let index = indexByToken[token] { members.append(index) }
        }
        for category in event.categories {
            members += membersByCategory[category] ?? []
        }
        return Array(Set(members)).sorted()
    }

    /// Focused seconds of `members` (distinct application indices) and of `websites` in
    /// applications that are not members, in `[from, to)`; the open interval counts up to
    /// `to` when its application is a member or its website one of `websites`.
    func focusedSeconds(
        ofMembers members: [Int], isMember: (Int) -> Bool, websites events: Set<WebDomainToken>, focusIsMember: Bool,
        from: Date, to: Date
    ) -> TimeInterval {
        let from = from.timeIntervalSinceReferenceDate
        let to = to.timeIntervalSinceReferenceDate
        guard to > from else { return 0 }
        var total = 0.0
        for index in members {
            total += applications[index].history.seconds(from: from, to: to)
        }
        for website in events {
            for application in applicationsByWebsite[website] ?? [] where !isMember(application) {
                total +=
                    websiteHistories[WebsiteKey(website: website, application: application)]?.seconds(
                        from: from, to: to) ?? 0
            }
        }
        if !elsewhere.isEmpty || !elsewhereWebsites.isEmpty {
            total += elsewhereSeconds(ofMembers: members, isMember: isMember, websites: events, from: from, to: to)
        }
        if let open = focus, focusIsMember || open.website.map(events.contains) == true {
            total += max(0, to - max(from, open.start))
        }
        return total
    }

    /// 1 while the open interval's application is a member or its website one of
    /// `websites`, from its start on (which may be a moment after `now`: see
    /// `EventUsage.accruesFrom`).
    func accrualRate(focusIsMember: Bool, websites: Set<WebDomainToken>, at now: Date) -> Double {
        guard let open = focus, focusIsMember || open.website.map(websites.contains) == true,
            now.timeIntervalSinceReferenceDate >= open.start - Self.focusPlacedAhead
        else { return 0 }
        return 1
    }

    /// How far after the moment it is read a focus change may be placed: an X event is
    /// placed in the middle of the millisecond the server stamped.
    static let focusPlacedAhead: TimeInterval = 0.001

    /// When the open interval started (reference-date seconds), if one is open.
    var focusStart: Double? { focus?.start }

    // MARK: Private

    private func isMember(_ index: Int, of event: DeviceActivityEvent) -> Bool {
        let application = applications[index]
        return event.applications.contains(application.facts.token)
            || (!event.categories.isEmpty && application.categories.contains(where: event.categories.contains))
    }

    private func close(_ open: Focus, at end: Double) {
        applications[open.application].history.add(start: open.start, end: end)
        if let website = open.website {
            addWebsite(website, application: open.application, start: open.start, end: end)
        }
        focus = nil
    }

    /// A website's token, its categories noted the first time.
    private func websiteToken(_ domain: String) -> WebDomainToken? {
        guard let token = websites.token(of: domain) else { return nil }
        if websiteCategories[token] == nil { websiteCategories[token] = websites.categories(of: domain) }
        return token
    }

    private func addWebsite(_ website: WebDomainToken, application: Int, start: Double, end: Double) {
        let key = WebsiteKey(website: website, application: application)
        if websiteHistories[key] == nil {
            websiteHistories[key] = FocusHistory()
            applicationsByWebsite[website, default: []].append(application)
        }
        websiteHistories[key]?.add(start: start, end: end)
    }

    /// The application's index, registering it (or updating its categories when
    /// its desktop entry changed) as needed.
    private func application(for facts: ApplicationFacts) -> Int {
        if let index = indexByToken[facts.token] {
            if applications[index].facts != facts {
                setCategories(of: index, to: categories.tokens(of: facts))
                applications[index].facts = facts
            }
            return index
        }
        let index = applications.count
        applications.append(Application(facts: facts, categories: []))
        catalogVersion += 1
        indexByToken[facts.token] = index
        setCategories(of: index, to: categories.tokens(of: facts))
        return index
    }

    private func setCategories(of index: Int, to new: [ActivityCategoryToken]) {
        var unique: [ActivityCategoryToken] = []
        for category in new where !unique.contains(category) { unique.append(category) }
        for category in applications[index].categories {
            membersByCategory[category]?.removeAll { $0 == index }
        }
        for category in unique {
            membersByCategory[category, default: []].append(index)
        }
        applications[index].categories = unique
        catalogVersion += 1
    }
}
