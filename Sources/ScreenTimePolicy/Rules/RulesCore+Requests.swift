@_spi(Screenward) import FamilyControls
import Foundation
import ScreenwardBasics
import ScreenwardIPC

/// Who sent one rules request, and whether they may change the rules.
struct RulesRequestContext {
    let actor: String
    let mayChange: Bool
}

/// The command line's requests: rules added, changed, removed, listed.
extension RulesCore {
    func handle(frame: Data, actor: String, mayChange: Bool) -> Data? {
        var context = RulesRequestContext(actor: actor, mayChange: mayChange)
        return Self.routes.reply(to: frame, by: self, &context)?.line
    }

    typealias Route = ServiceRoutes<RulesCore, RulesRequestContext>.Route

    /// `method` answered by `handler`; one that changes the rules (not among
    /// `RulesMethods.reading`) only for a caller who may change them.
    private static func route<Request, Reply>(
        _ method: ServiceMethod<Request, Reply>,
        _ handler: @escaping @Sendable (RulesCore, _ actor: String, Request) throws -> Reply
    ) -> Route {
        let changes = !RulesMethods.reading.contains(method.name)
        return .on(method, errors: serviceError) { core, context, request in
            if changes && !context.mayChange {
                throw ServiceError(.unauthorized, "only a guardian can change a managed user's rules")
            }
            return try handler(core, context.actor, request.body)
        }
    }

    static let routes = ServiceRoutes<RulesCore, RulesRequestContext>(
        [
            route(RulesMethods.list) { core, _, _ in try core.listing() },
            route(RulesMethods.status) { core, _, query in try core.status(language: query.language) },
            route(RulesMethods.add) { core, actor, edit in try core.add(edit.rule, by: actor) },
            route(RulesMethods.change) { core, actor, edit in try core.change(edit.rule, by: actor) },
            route(RulesMethods.remove) { core, _, removal in try core.remove(removal.name, kind: removal.kind) },
            route(RulesMethods.allow) { core, _, edit in try core.allow(edit.applications) },
            route(RulesMethods.disallow) { core, _, edit in try core.disallow(edit.applications) },
            route(RulesMethods.requests) { core, _, _ in try core.requests() },
            route(RulesMethods.answer) { core, actor, request in
                try core.answerRequest(request.id, approve: request.approve, seconds: request.seconds, by: actor)
            },
            route(RulesMethods.pause) { core, actor, request in try core.pause(for: request.seconds, by: actor) },
            route(RulesMethods.ask) { core, _, request in try core.askForMoreTime(onLimit: request.rule) },
            route(RulesMethods.extraTime) { core, _, request in
                try core.takeExtraTime(on: request.rule, application: request.application)
            },
        ],
        unknown: { method in ServiceError(.unknownMethod, "the rules app knows no request \(method)") })

    static func serviceError(_ error: any Error) -> ServiceError {
        switch error {
        case let error as ServiceError: error
        case let error as RuleText.Invalid: ServiceError(.invalidArgument, error.description)
        case RuleLedgerError.duplicateName(let name):
            ServiceError(
                .invalidArgument, "there is already a rule named \(name); pick another name or remove it first")
        case RuleLedgerError.noSuchRule(let name): ServiceError(.invalidArgument, "there is no rule named \(name)")
        default: ServiceError(.internalFailure, "the rules could not be changed: \(error)")
        }
    }

    // MARK: Adding, changing, removing

    func add(_ rule: Rule, by actor: String) throws -> RuleOutcome {
        try check(rule)
        guard try ledger.rules().count < Self.maximumRules else {
            throw ServiceError(.limitExceeded, "there are already \(Self.maximumRules) rules; remove one first")
        }
        try ledger.insertRule(rule, by: actor, at: now)
        try syncActivities()
        reconcile()
        return RuleOutcome(message: "Added the \(rule.kind.rawValue) \(rule.name): \(summary(rule)).")
    }

    func change(_ rule: Rule, by actor: String) throws -> RuleOutcome {
        try check(rule)
        let old = try existing(rule.name, kind: rule.kind)
        let time = now
        if let lock = old.lockedFor, !rule.isAtLeastAsStrict(as: old) {
            let effective = time.addingTimeInterval(lock)
            try ledger.setPendingRuleChange(
                PendingRuleChange(name: old.name, rule: rule, askedAt: time, effectiveAt: effective))
            try scheduleRelaxationWakeUp()
            return RuleOutcome(
                message:
                    """
                    \(old.name) is locked for \(RuleText.duration(lock)): the change relaxes it, \
                    so it takes effect at \(timeText(effective)) (\(Self.day(effective, calendar: calendar))).
                    """,
                effectiveAt: effective)
        }
        var renamed = rule
        renamed.name = old.name
        try ledger.replaceRule(renamed)
        try syncActivities()
        try registerExtraTime(for: renamed)
        reconcile()
        return RuleOutcome(message: "Changed the \(rule.kind.rawValue) \(old.name): \(summary(renamed)).")
    }

    func remove(_ name: String, kind: Rule.Kind) throws -> RuleOutcome {
        let old = try existing(name, kind: kind)
        let time = now
        if let lock = old.lockedFor {
            let effective = time.addingTimeInterval(lock)
            try ledger.setPendingRuleChange(
                PendingRuleChange(name: old.name, rule: nil, askedAt: time, effectiveAt: effective))
            try scheduleRelaxationWakeUp()
            return RuleOutcome(
                message:
                    """
                    \(old.name) is locked for \(RuleText.duration(lock)): it will be removed \
                    at \(timeText(effective)) (\(Self.day(effective, calendar: calendar))).
                    """,
                effectiveAt: effective)
        }
        try ledger.deleteRule(named: old.name)
        try syncActivities()
        reconcile()
        return RuleOutcome(message: "Removed the \(kind.rawValue) \(old.name).")
    }

    /// The household's rules, changed on another computer, made this person's here.
    func adopt(_ rules: HouseholdRules) throws -> Bool {
        guard try ledger.replaceRules(with: rules, at: now) else { return false }
        try syncActivities()
        for entry in rules.rules { try registerExtraTime(for: entry.rule) }
        reconcile()
        return true
    }

    /// The rule of that name and kind, or an error that says what there is.
    func existing(_ name: String, kind: Rule.Kind) throws -> Rule {
        guard let rule = try storedRules().first(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame }) else {
            throw RuleLedgerError.noSuchRule(name)
        }
        guard rule.kind == kind else {
            throw ServiceError(
                .invalidArgument,
                """
                \(rule.name) is a \(rule.kind.rawValue), not a \
                \(kind.rawValue): use `screenward \(rule.kind.rawValue) …`
                """
            )
        }
        return rule
    }

    /// A rule as it may be kept: valid, and naming only what exists.
    func check(_ rule: Rule) throws {
        if let problem = rule.problem { throw ServiceError(.invalidArgument, problem) }
        if rule.lockedFor != nil, placement == .managed {
            throw ServiceError(
                .invalidArgument,
                "--locked-for is for a person's own rules; a guardian's rules already bind a managed user")
        }
        guard let items = rule.items else { return }
        guard items.count <= ShieldSettingsLimits.items else {
            throw ServiceError(
                .limitExceeded, "a limit counts at most \(ShieldSettingsLimits.items) applications and categories")
        }
        // Issuing tokens refuses an id nothing is installed under, with the reason.
        let event = try event(for: items, threshold: 1)
        do {
            _ = try owner.usage(event, now, now)
        } catch {
            throw ServiceError(
                .invalidArgument,
                """
                the selection holds tokens that are not \(RulesApp.bundleIdentifier)'s: \
                make it with `screenward select --for \(RulesApp.bundleIdentifier) …` (\(error))
                """
            )
        }
    }

    // MARK: Always allowed

    func allow(_ ids: [String]) throws -> RuleOutcome {
        guard !ids.isEmpty else { throw ServiceError(.invalidArgument, "name at least one application to allow") }
        let sites = ids.filter { $0.hasPrefix(AllowedApplication.sitePrefix) }.map {
            String($0.dropFirst(AllowedApplication.sitePrefix.count))
        }
        _ = try tokens(applications: ids.filter { !$0.hasPrefix(AllowedApplication.sitePrefix) })
        _ = try tokens(websites: sites)
        let time = now
        // Allowing an application relaxes every rule: a locked rule makes it wait.
        let lock = try storedRules().compactMap(\.lockedFor).max()
        let effective = lock.map { time.addingTimeInterval($0) } ?? time
        for id in ids { try ledger.allowApplication(id, at: time, effectiveAt: effective) }
        try scheduleRelaxationWakeUp()
        reconcile()
        if let lock {
            return RuleOutcome(
                message:
                    """
                    A rule is locked for \(RuleText.duration(lock)): \(ids.joined(separator: ", ")) will be \
                    always allowed from \(timeText(effective)) (\(Self.day(effective, calendar: calendar))).
                    """,
                effectiveAt: effective)
        }
        return RuleOutcome(message: "Always allowed: \(ids.joined(separator: ", ")).")
    }

    func disallow(_ ids: [String]) throws -> RuleOutcome {
        var removed: [String] = []
        for id in ids where try ledger.disallowApplication(id) { removed.append(id) }
        guard !removed.isEmpty else {
            throw ServiceError(.invalidArgument, "none of \(ids.joined(separator: ", ")) is always allowed")
        }
        try scheduleRelaxationWakeUp()
        reconcile()
        return RuleOutcome(message: "No longer always allowed: \(removed.joined(separator: ", ")).")
    }

    // MARK: Extra time on one's own rule

    /// "15 more minutes": at once, at most as often a day as the rule allows, recorded.
    func takeExtraTime(on name: String, application: String?, token shieldToken: String? = nil) throws -> RuleOutcome {
        guard placement == .individual else {
            throw ServiceError(
                .unauthorized, "a managed user asks a guardian for more time (\"Ask for more time\" on the shield)")
        }
        guard let rule = try storedRules().first(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame }) else {
            throw RuleLedgerError.noSuchRule(name)
        }
        let time = now
        let interval: DateInterval
        switch rule.kind {
        case .limit:
            interval = try limitState(rule, at: time).day
        case .downtime:
            let state = downtimeState(rule, at: time)
            guard state.isActive, let running = state.interval else {
                throw ServiceError(.invalidArgument, "\(rule.name) is not in downtime now")
            }
            guard application != nil || shieldToken != nil else {
                throw ServiceError(
                    .invalidArgument, "name the application the extra downtime minutes are for (--app ID)")
            }
            interval = running
        }
        // A downtime's minutes are for one application, by the app's own token for it.
        let token =
            try shieldToken
            ?? application.map { id in
                try tokens(applications: [id])[id]?.opaqueValue
                    ?? { throw ServiceError(.invalidArgument, "no application \(id)") }()
            }
        let taken = try extraTimeTaken(on: rule, in: interval)
        guard taken < rule.extraTimePerDay else {
            throw ServiceError(
                .limitExceeded,
                """
                \(rule.name) allows 15 more minutes \(rule.extraTimePerDay) \
                time\(rule.extraTimePerDay == 1 ? "" : "s") a day, and \(taken == 1 ? "it was" : "they were") taken
                """
            )
        }
        try ledger.insertRuleGrant(
            rule: rule.name, application: rule.kind == .downtime ? token : nil, seconds: Rule.extraTime, by: "self",
            at: time, interval: interval)
        report(
            """
            rules: 15 more minutes on \(rule.name)\(application.map { " for \($0)" } ?? "") \
            (\(taken + 1) of \(rule.extraTimePerDay) today)
            """
        )
        try registerExtraTime(for: rule)
        reconcile()
        return RuleOutcome(message: "15 more minutes on \(rule.name) (\(taken + 1) of \(rule.extraTimePerDay) today).")
    }

    func extraTimeTaken(on rule: Rule, in interval: DateInterval) throws -> Int {
        try ledger.ruleGrants(endingAfter: interval.start).filter {
            $0.rule.caseInsensitiveCompare(rule.name) == .orderedSame && $0.grantedBy == "self"
                && $0.interval == interval
        }.count
    }

    // MARK: Describing

    func summary(_ rule: Rule) -> String {
        var text: String
        switch rule.kind {
        case .limit:
            let names = rule.items.map { itemNames($0) } ?? []
            text = "\(RuleText.duration(rule.daily ?? 0)) a day of \(names.joined(separator: ", "))"
        case .downtime:
            text = "from \(rule.from?.description ?? "?") to \(rule.to?.description ?? "?")"
        }
        text += rule.days.isEvery ? ", every day" : ", on \(rule.days)"
        if let lock = rule.lockedFor { text += ", locked for \(RuleText.duration(lock))" }
        return text
    }

    /// People's names for what a limit counts.
    func itemNames(_ items: RuleItems, language: String? = nil) -> [String] {
        let language = language ?? self.language()
        return items.applications.map { owner.directory.application(publicID: $0)?.displayName ?? $0 }
            + items.categories.map { owner.directory.categories.displayName(of: $0, language: language) }
            + (items.applicationTokens.isEmpty ? [] : ["\(items.applicationTokens.count) selected application(s)"])
            + (items.categoryTokens.isEmpty ? [] : ["\(items.categoryTokens.count) selected categories"])
            + items.websites.map(HostName.readable)
    }

    func listing() throws -> RulesListing {
        let pending = try ledger.pendingRuleChanges()
        let entries = try ledger.rules().map { stored in
            RulesListing.Entry(
                rule: stored.rule, createdAt: stored.createdAt, createdBy: stored.createdBy,
                pending: pending.first { $0.name.caseInsensitiveCompare(stored.rule.name) == .orderedSame },
                itemNames: stored.rule.items.map { itemNames($0) } ?? [])
        }
        let allowed = try ledger.allowedApplications()
        let names = Dictionary(
            allowed.map {
                (
                    $0.id,
                    $0.website.map(HostName.readable) ?? owner.directory.application(publicID: $0.id)?.displayName
                        ?? $0.id
                )
            },
            uniquingKeysWith: { a, _ in a })
        return RulesListing(rules: entries, allowed: allowed, allowedNames: names)
    }

    /// `today`, `tomorrow` or the date.
    static func day(_ date: Date, calendar: Calendar) -> String {
        if calendar.isDateInToday(date) { return "today" }
        if calendar.isDateInTomorrow(date) { return "tomorrow" }
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }
}

/// How many items one limit may count: the store it shields with lists at most 50 applications.
enum ShieldSettingsLimits {
    static let items = 50
}
