@_spi(Screenward) import DeviceActivity
@_spi(Screenward) import FamilyControls
import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardIPC

/// Where a limit stands today.
struct LimitState {
    var day: DateInterval
    var appliesToday: Bool
    var used: TimeInterval
    var daily: TimeInterval
    /// Extra time given today (a grant "for the rest of the day" makes it unlimited).
    var extraTime: TimeInterval
    var unlimited: Bool
    var allowance: TimeInterval { daily + extraTime }
    var remaining: TimeInterval { unlimited ? .infinity : max(0, allowance - used) }
    var isUsedUp: Bool { appliesToday && !unlimited && used >= allowance - RulesCore.tolerance }
}

/// Where a downtime stands: the interval running now (on a day it applies), else the next.
struct DowntimeState {
    var interval: DateInterval?
    var isActive: Bool
}

extension RulesCore {
    func storedRules() throws -> [Rule] { try ledger.rules().map(\.rule) }

    static func storeName(_ rule: String) -> String { "rule.\(rule)" }

    // MARK: Working out the state

    func limitState(_ rule: Rule, at time: Date? = nil) throws -> LimitState {
        let time = time ?? now
        let calendar = calendar
        let day =
            calendar.dateInterval(of: .day, for: time)
            ?? DateInterval(start: calendar.startOfDay(for: time), duration: 86_400)
        let applies = rule.days.contains(calendar.component(.weekday, from: day.start))
        let used = try rule.items.map { try owner.usage(try event(for: $0, threshold: 1), day.start, time) } ?? 0
        let grants = try ledger.ruleGrants(endingAfter: time).filter {
            $0.rule.caseInsensitiveCompare(rule.name) == .orderedSame && $0.interval.start <= time
        }
        return LimitState(
            day: day, appliesToday: applies, used: used, daily: rule.daily ?? 0,
            extraTime: grants.compactMap(\.seconds).reduce(0, +),
            unlimited: grants.contains { $0.seconds == nil })
    }

    func downtimeSchedule(_ rule: Rule) -> DeviceActivitySchedule? {
        guard let from = rule.from, let to = rule.to else { return nil }
        return DeviceActivitySchedule(
            intervalStart: DateComponents(hour: from.hour, minute: from.minute),
            intervalEnd: DateComponents(hour: to.hour, minute: to.minute),
            repeats: true, warningTime: warningLeads.first.map(Self.components))
    }

    func downtimeApplies(_ rule: Rule, intervalStart: Date) -> Bool {
        rule.days.contains(calendar.component(.weekday, from: intervalStart))
    }

    func downtimeState(_ rule: Rule, at time: Date? = nil) -> DowntimeState {
        let time = time ?? now
        guard let schedule = downtimeSchedule(rule) else { return DowntimeState(interval: nil, isActive: false) }
        var probe = time
        // The interval running now, else the next one on a day the downtime applies.
        for _ in 0..<8 {
            guard let interval = schedule.interval(containingOrAfter: probe, calendar: calendar) else { break }
            if downtimeApplies(rule, intervalStart: interval.start) {
                return DowntimeState(interval: interval, isActive: interval.start <= time && time < interval.end)
            }
            probe = interval.end
        }
        return DowntimeState(interval: nil, isActive: false)
    }

    /// Downtime extra time still running: the applications it frees (the app's own
    /// tokens), by grant.
    func runningDowntimeGrants(_ rule: Rule, at time: Date) throws -> [RuleGrant] {
        try ledger.ruleGrants(endingAfter: time).filter { grant in
            guard grant.rule.caseInsensitiveCompare(rule.name) == .orderedSame, let token = grant.application,
                grant.interval.start <= time
            else {
                return false
            }
            guard let seconds = grant.seconds else { return true }
            let used = try owner.usage(
                try event(for: RuleItems(applicationTokens: [token]), threshold: 1), grant.grantedAt, time)
            return used < seconds - Self.tolerance
        }
    }

    /// The always-allowed applications that count at `time`.
    func allowedTokens(at time: Date) -> Set<ApplicationToken> {
        let ids = ((try? ledger.allowedApplications()) ?? []).filter { $0.effectiveAt <= time && $0.website == nil }
            .map(\.id)
        var tokens: Set<ApplicationToken> = []
        for id in ids {
            do { tokens.formUnion(try self.tokens(applications: [id]).values) } catch {
                report(
                    "rules: the always-allowed application \(id) is not installed any more (\(error)); it is left out")
            }
        }
        return tokens
    }

    /// The always-allowed websites that count at `time`.
    func allowedWebsites(at time: Date) -> Set<WebDomainToken> {
        let sites = ((try? ledger.allowedApplications()) ?? []).filter { $0.effectiveAt <= time }.compactMap(\.website)
        do { return Set(try tokens(websites: sites).values) } catch {
            report("rules: the always-allowed websites could not be named (\(error)); none is allowed now")
            return []
        }
    }

    /// The browsers installed (their desktop entries say `WebBrowser`): open during a downtime
    /// when a website is always allowed, for that website only.
    func browserTokens() -> Set<ApplicationToken> {
        let ids = owner.directory.catalog.entries.filter { !$0.noDisplay && $0.categories.contains("WebBrowser") }.map(
            \.id)
        return Set(((try? tokens(applications: ids)) ?? [:]).values)
    }

    // MARK: Stores

    /// The end of a pause running at `time` (every rule lifted), if any.
    func pausedUntil(at time: Date) throws -> Date? {
        try ledger.ruleGrants(endingAfter: time).filter { $0.rule == Self.pauseRule && $0.interval.start <= time }.map(
            \.interval.end
        ).max()
    }

    /// A pause is extra time on every rule at once.
    static let pauseRule = "*"

    /// What each rule's store must hold now.
    func desiredStores(at time: Date) throws -> [String: StoreContents] {
        let allowed = allowedTokens(at: time)
        let allowedSites = allowedWebsites(at: time)
        let paused = try pausedUntil(at: time) != nil
        var stores: [String: StoreContents] = [:]
        for rule in try storedRules() {
            guard !paused else {
                stores[Self.storeName(rule.name)] = StoreContents(
                    shield: ShieldSettings(), application: ApplicationSettings())
                continue
            }
            var shield = ShieldSettings()
            switch rule.kind {
            case .limit:
                if let items = rule.items, try limitState(rule, at: time).isUsedUp {
                    let event = try event(for: items, threshold: 1)
                    let applications = event.applications.subtracting(allowed)
                    if !applications.isEmpty { shield.applications = applications }
                    if !event.categories.isEmpty {
                        shield.applicationCategories = .specific(event.categories, except: allowed)
                    }
                    let websites = event.webDomains.subtracting(allowedSites)
                    if !websites.isEmpty { shield.webDomains = websites }
                }
            case .downtime:
                if downtimeState(rule, at: time).isActive {
                    let freed = try runningDowntimeGrants(rule, at: time).compactMap(\.application).map(
                        ApplicationToken.init(opaqueValue:))
                    var exceptions = allowed.union(freed)
                    if !allowedSites.isEmpty {
                        // The browsers stay open for the allowed websites, and only for them.
                        exceptions.formUnion(browserTokens())
                        shield.webDomainCategories = .all(except: allowedSites)
                    }
                    shield.applicationCategories = .all(except: exceptions)
                }
            }
            stores[Self.storeName(rule.name)] = StoreContents(shield: shield, application: ApplicationSettings())
        }
        return stores
    }

    /// Writes every store that differs from what it must hold now.
    func reconcile() {
        let time = now
        do {
            let desired = try desiredStores(at: time)
            for name in Set(desired.keys).union(written.keys).sorted() {
                let target =
                    desired[name] ?? StoreContents(shield: ShieldSettings(), application: ApplicationSettings())
                let current = try written[name] ?? client.call(StoreMethods.read, StoreReference(name: name))
                let settings = StoreChange.settings(from: current, to: target)
                if !settings.isEmpty {
                    _ = try client.call(StoreMethods.change, StoreChange(name: name, settings: settings))
                }
                written[name] = desired[name]
            }
            try stopEndedActivities(at: time)
        } catch {
            report("rules: could not bring the shields in line with the rules: \(error)")
        }
    }

    // MARK: Activities

    /// The activities a rule runs always (its day or its downtime, and their warnings).
    func registrations(for rule: Rule) throws -> [ActivityRegistration] {
        switch rule.kind {
        case .limit:
            guard let items = rule.items, let daily = rule.daily else { return [] }
            var events = [ActivityNaming.usedUpEvent: try event(for: items, threshold: daily)]
            for lead in warningLeads where lead < daily {
                events[ActivityNaming.warningEvent(lead)] = try event(for: items, threshold: daily - lead)
            }
            let midnight = DateComponents(hour: 0, minute: 0)
            return [
                ActivityRegistration(
                    name: ActivityNaming.name(.limit, rule.name),
                    schedule: DeviceActivitySchedule(intervalStart: midnight, intervalEnd: midnight, repeats: true),
                    events: events)
            ]
        case .downtime:
            guard let schedule = downtimeSchedule(rule) else { return [] }
            var registrations = [
                ActivityRegistration(name: ActivityNaming.name(.downtime, rule.name), schedule: schedule, events: [:])
            ]
            for lead in warningLeads.dropFirst() {
                var warning = schedule
                warning.warningTime = Self.components(lead)
                registrations.append(
                    ActivityRegistration(
                        name: ActivityNaming.downtimeWarning(rule.name, lead: lead), schedule: warning, events: [:]))
            }
            return registrations
        }
    }

    /// Registers what the rules need and stops what they no longer do. Unchanged
    /// registrations are left alone: registering again would start their intervals over.
    func syncActivities() throws {
        var desired: [DeviceActivityName: ActivityRegistration] = [:]
        let rules = try storedRules()
        for rule in rules {
            for registration in try registrations(for: rule) { desired[registration.name] = registration }
        }
        let ruleNames = Set(rules.map { $0.name.lowercased() })
        for (name, registration) in desired where registered[name] != registration {
            try register(registration)
        }
        let stale = registered.keys.filter { name in
            guard desired[name] == nil else { return false }
            let (prefix, rule) = ActivityNaming.parse(name)
            // Extra time and relaxations are registered as they are given; they go with their rule.
            switch prefix {
            case .extra: return !ruleNames.contains(rule.lowercased())
            case .relax, .pause: return false
            default: return true
            }
        }
        try stop(Array(stale))
        try scheduleRelaxationWakeUp()
    }

    func register(_ registration: ActivityRegistration) throws {
        _ = try client.call(ActivityMethods.start, registration)
        registered[registration.name] = registration
    }

    func stop(_ names: [DeviceActivityName]) throws {
        guard !names.isEmpty else { return }
        _ = try client.call(ActivityMethods.stop, names)
        for name in names { registered[name] = nil }
    }

    /// One-off activities (extra time, relaxations) whose interval is over go.
    func stopEndedActivities(at time: Date) throws {
        let ended = registered.values.filter { registration in
            guard !registration.schedule.repeats else { return false }
            return registration.schedule.interval(containingOrAfter: time, calendar: calendar) == nil
        }
        try stop(ended.map(\.name))
    }

    /// A one-off schedule from `start` to `end` (whole seconds).
    func oneOff(from start: Date, to end: Date) -> DeviceActivitySchedule {
        let fields: Set<Calendar.Component> = [.year, .month, .day, .hour, .minute, .second]
        return DeviceActivitySchedule(
            intervalStart: calendar.dateComponents(fields, from: start),
            intervalEnd: calendar.dateComponents(fields, from: end.addingTimeInterval(0.999)),
            repeats: false)
    }

    /// Registers what wakes the app for extra time on `rule`: a limit's new allowance
    /// (and its warnings) until the day ends, or each running downtime grant's use.
    func registerExtraTime(for rule: Rule) throws {
        let time = now
        let name = ActivityNaming.name(.extra, rule.name)
        switch rule.kind {
        case .limit:
            let state = try limitState(rule, at: time)
            guard let items = rule.items, !state.unlimited, state.extraTime > 0, state.remaining > 0 else {
                return try stop([name].filter { registered[$0] != nil })
            }
            var events = [ActivityNaming.usedUpEvent: try event(for: items, threshold: state.remaining)]
            for lead in warningLeads where lead < state.remaining {
                events[ActivityNaming.warningEvent(lead)] = try event(for: items, threshold: state.remaining - lead)
            }
            for key in Array(events.keys) { events[key]?.includesPastActivity = false }
            try register(
                ActivityRegistration(name: name, schedule: oneOff(from: time, to: state.day.end), events: events))
        case .downtime:
            let state = downtimeState(rule, at: time)
            guard let interval = state.interval, state.isActive else { return }
            var events: [DeviceActivityEvent.Name: DeviceActivityEvent] = [:]
            for grant in try runningDowntimeGrants(rule, at: time) {
                guard let token = grant.application, let seconds = grant.seconds else { continue }
                let used = try owner.usage(
                    try event(for: RuleItems(applicationTokens: [token]), threshold: 1), grant.grantedAt, time)
                var event = try event(for: RuleItems(applicationTokens: [token]), threshold: max(1, seconds - used))
                event.includesPastActivity = false
                events[DeviceActivityEvent.Name("grant.\(grant.id)")] = event
            }
            guard !events.isEmpty else { return try stop([name].filter { registered[$0] != nil }) }
            try register(
                ActivityRegistration(name: name, schedule: oneOff(from: time, to: interval.end), events: events))
        }
    }

    // MARK: Relaxations of locked rules

    /// Applies the relaxations whose time has come.
    func applyDueRelaxations() throws {
        let time = now
        for change in try ledger.pendingRuleChanges() where change.effectiveAt <= time.addingTimeInterval(0.5) {
            if let rule = change.rule {
                try ledger.replaceRule(rule)
                report("rules: the relaxation of \(rule.name) asked for at \(change.askedAt) took effect")
            } else {
                try ledger.deleteRule(named: change.name)
                report("rules: the removal of \(change.name) asked for at \(change.askedAt) took effect")
            }
        }
        try syncActivities()
    }

    /// One activity ends when the earliest waiting relaxation (or allowance) comes due.
    func scheduleRelaxationWakeUp() throws {
        let time = now
        let waiting =
            try ledger.pendingRuleChanges().map(\.effectiveAt) + ledger.allowedApplications().map(\.effectiveAt)
        guard let next = waiting.filter({ $0 > time }).min() else {
            return try stop([ActivityNaming.relaxActivity].filter { registered[$0] != nil })
        }
        let schedule = oneOff(from: time, to: next)
        if registered[ActivityNaming.relaxActivity]?.schedule.intervalEnd == schedule.intervalEnd { return }
        try register(ActivityRegistration(name: ActivityNaming.relaxActivity, schedule: schedule, events: [:]))
    }
}
