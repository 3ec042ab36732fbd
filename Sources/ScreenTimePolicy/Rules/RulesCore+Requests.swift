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
                throw ServiceError(
                    .unauthorized, Phrase("only a guardian can change a managed user's rules", context: "rules"))
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
        unknown: { method in
            ServiceError(
                .unknownMethod, Phrase("the rules app knows no request {method}", context: "rules", ["method": method]))
        })

    static func serviceError(_ error: any Error) -> ServiceError {
        switch error {
        case let error as ServiceError: error
        case let error as RuleText.Invalid: ServiceError(.invalidArgument, error.phrase)
        case RuleLedgerError.duplicateName(let name):
            ServiceError(
                .invalidArgument,
                Phrase(
                    "there is already a rule named {name}; pick another name or remove it first", context: "rules",
                    ["name": name]))
        case RuleLedgerError.noSuchRule(let name):
            ServiceError(.invalidArgument, Phrase("there is no rule named {name}", context: "rules", ["name": name]))
        default:
            ServiceError(
                .internalFailure,
                Phrase("the rules could not be changed: {error}", context: "rules", ["error": "\(error)"]))
        }
    }

    // MARK: Adding, changing, removing

    func add(_ rule: Rule, by actor: String) throws -> RuleOutcome {
        try check(rule)
        guard try ledger.rules().count < Self.maximumRules else {
            throw ServiceError(
                .limitExceeded,
                Phrase(
                    "there are already {count} rules; remove one first", context: "rules",
                    ["count": "\(Self.maximumRules)"]))
        }
        try ledger.insertRule(rule, by: actor, at: now)
        try syncActivities()
        reconcile()
        let values = ["name": rule.name, "summary": summary(rule)] as [String: any PhraseFilling]
        return RuleOutcome(
            rule.kind == .limit
                ? Phrase("Added the limit {name}: {summary}.", context: "rules", values)
                : Phrase("Added the downtime {name}: {summary}.", context: "rules", values))
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
                Phrase(
                    "{name} is locked for {lock}: the change relaxes it, so it takes effect at {time} ({day}).",
                    context: "rules",
                    [
                        "name": old.name, "lock": RuleTexts.spanPhrase(lock), "time": timeText(effective),
                        "day": day(effective),
                    ]),
                effectiveAt: effective)
        }
        var renamed = rule
        renamed.name = old.name
        try ledger.replaceRule(renamed)
        try syncActivities()
        try registerExtraTime(for: renamed)
        reconcile()
        let values = ["name": old.name, "summary": summary(renamed)] as [String: any PhraseFilling]
        return RuleOutcome(
            rule.kind == .limit
                ? Phrase("Changed the limit {name}: {summary}.", context: "rules", values)
                : Phrase("Changed the downtime {name}: {summary}.", context: "rules", values))
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
                Phrase(
                    "{name} is locked for {lock}: it will be removed at {time} ({day}).", context: "rules",
                    [
                        "name": old.name, "lock": RuleTexts.spanPhrase(lock), "time": timeText(effective),
                        "day": day(effective),
                    ]),
                effectiveAt: effective)
        }
        try ledger.deleteRule(named: old.name)
        try syncActivities()
        reconcile()
        return RuleOutcome(
            kind == .limit
                ? Phrase("Removed the limit {name}.", context: "rules", ["name": old.name])
                : Phrase("Removed the downtime {name}.", context: "rules", ["name": old.name]))
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
                rule.kind == .limit
                    ? Phrase(
                        "{name} is a limit, not a downtime: use `screenward limit …`", context: "rules",
                        ["name": rule.name])
                    : Phrase(
                        "{name} is a downtime, not a limit: use `screenward downtime …`", context: "rules",
                        ["name": rule.name]))
        }
        return rule
    }

    /// A rule as it may be kept: valid, and naming only what exists.
    func check(_ rule: Rule) throws {
        if let problem = rule.problem { throw ServiceError(.invalidArgument, problem) }
        if rule.lockedFor != nil, placement == .managed {
            throw ServiceError(
                .invalidArgument,
                Phrase(
                    "--locked-for is for a person's own rules; a guardian's rules already bind a managed user",
                    context: "rules"))
        }
        guard let items = rule.items else { return }
        guard items.count <= ShieldSettingsLimits.items else {
            throw ServiceError(
                .limitExceeded,
                Phrase(
                    "a limit counts at most {count} applications and categories", context: "rules",
                    ["count": "\(ShieldSettingsLimits.items)"]))
        }
        // Issuing tokens refuses an id nothing is installed under, with the reason.
        let event = try event(for: items, threshold: 1)
        do {
            _ = try owner.usage(event, now, now)
        } catch {
            let values =
                ["app": RulesApp.bundleIdentifier, "error": Phrase.Value.said(by: error)] as [String: any PhraseFilling]
            // swift-format-ignore
            throw ServiceError(.invalidArgument, Phrase("the selection holds tokens that are not {app}'s: make it with `screenward select --for {app} …` ({error})", context: "rules", values))
        }
    }

    // MARK: Always allowed

    func allow(_ ids: [String]) throws -> RuleOutcome {
        guard !ids.isEmpty else {
            throw ServiceError(.invalidArgument, Phrase("name at least one application to allow", context: "rules"))
        }
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
                Phrase(
                    "A rule is locked for {lock}: {ids} will be always allowed from {time} ({day}).", context: "rules",
                    [
                        "lock": RuleTexts.spanPhrase(lock), "ids": ids.joined(separator: ", "),
                        "time": timeText(effective),
                        "day": day(effective),
                    ]),
                effectiveAt: effective)
        }
        return RuleOutcome(Phrase("Always allowed: {ids}.", context: "rules", ["ids": ids.joined(separator: ", ")]))
    }

    func disallow(_ ids: [String]) throws -> RuleOutcome {
        var removed: [String] = []
        for id in ids where try ledger.disallowApplication(id) { removed.append(id) }
        guard !removed.isEmpty else {
            throw ServiceError(
                .invalidArgument,
                Phrase("none of {ids} is always allowed", context: "rules", ["ids": ids.joined(separator: ", ")]))
        }
        try scheduleRelaxationWakeUp()
        reconcile()
        return RuleOutcome(
            Phrase("No longer always allowed: {ids}.", context: "rules", ["ids": removed.joined(separator: ", ")]))
    }

    // MARK: Extra time on one's own rule

    /// "15 more minutes": at once, at most as often a day as the rule allows, recorded.
    func takeExtraTime(on name: String, application: String?, token shieldToken: String? = nil) throws -> RuleOutcome {
        guard placement == .individual else {
            throw ServiceError(
                .unauthorized,
                Phrase(
                    "a managed user asks a guardian for more time (\"Ask for more time\" on the shield)",
                    context: "rules"))
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
                throw ServiceError(
                    .invalidArgument, Phrase("{name} is not in downtime now", context: "rules", ["name": rule.name]))
            }
            guard application != nil || shieldToken != nil else {
                throw ServiceError(
                    .invalidArgument,
                    Phrase("name the application the extra downtime minutes are for (--app ID)", context: "rules"))
            }
            interval = running
        }
        // A downtime's minutes are for one application, by the app's own token for it.
        let token =
            try shieldToken
            ?? application.map { id in
                try tokens(applications: [id])[id]?.opaqueValue
                    ?? {
                        throw ServiceError(
                            .invalidArgument, Phrase("no application {id}", context: "rules", ["id": id]))
                    }()
            }
        let taken = try extraTimeTaken(on: rule, in: interval)
        guard taken < rule.extraTimePerDay else {
            throw ServiceError(
                .limitExceeded,
                rule.extraTimePerDay == 1
                    ? Phrase(
                        "{name} allows 15 more minutes once a day, and it was taken", context: "rules",
                        ["name": rule.name])
                    : Phrase(
                        "{name} allows 15 more minutes {count} times a day, and they were taken", context: "rules",
                        ["name": rule.name, "count": "\(rule.extraTimePerDay)"]))
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
        return RuleOutcome(
            Phrase(
                "15 more minutes on {name} ({taken} of {count} today).", context: "rules",
                ["name": rule.name, "taken": "\(taken + 1)", "count": "\(rule.extraTimePerDay)"]))
    }

    func extraTimeTaken(on rule: Rule, in interval: DateInterval) throws -> Int {
        try ledger.ruleGrants(endingAfter: interval.start).filter {
            $0.rule.caseInsensitiveCompare(rule.name) == .orderedSame && $0.grantedBy == "self"
                && $0.interval == interval
        }.count
    }

    // MARK: Describing

    /// What a rule does, for the message that it was added or changed.
    func summary(_ rule: Rule) -> Phrase {
        let what: Phrase
        switch rule.kind {
        case .limit:
            let names = rule.items.map { itemNames($0) } ?? []
            what = Phrase(
                "{daily} a day of {names}", context: "rules",
                ["daily": RuleTexts.spanPhrase(rule.daily ?? 0), "names": names.joined(separator: ", ")])
        case .downtime:
            what = Phrase(
                "from {start} to {end}", context: "rules",
                ["start": rule.from?.description ?? "?", "end": rule.to?.description ?? "?"])
        }
        switch (rule.days.isEvery, rule.lockedFor.map(RuleTexts.spanPhrase)) {
        case (true, nil): return Phrase("{what}, every day", context: "rules", ["what": what])
        case (false, nil):
            return Phrase("{what}, on {days}", context: "rules", ["what": what, "days": rule.days.phrase])
        case (true, let lock?):
            return Phrase("{what}, every day, locked for {lock}", context: "rules", ["what": what, "lock": lock])
        case (false, let lock?):
            return Phrase(
                "{what}, on {days}, locked for {lock}", context: "rules",
                ["what": what, "days": rule.days.phrase, "lock": lock])
        }
    }

    /// People's names for what a limit counts.
    func itemNames(_ items: RuleItems, language: String? = nil) -> [String] {
        let language = language ?? self.language()
        return items.applications.map { owner.directory.application(publicID: $0)?.displayName ?? $0 }
            + items.categories.map { owner.directory.categories.displayName(of: $0, language: language) }
            + (items.applicationTokens.isEmpty
                ? []
                : [
                    Translations.forLanguage(language)(
                        "{count} selected application(s)", context: "rules",
                        ["count": "\(items.applicationTokens.count)"])
                ])
            + (items.categoryTokens.isEmpty
                ? []
                : [
                    Translations.forLanguage(language)(
                        "{count} selected categories", context: "rules", ["count": "\(items.categoryTokens.count)"])
                ])
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
    func day(_ date: Date) -> Phrase.Value {
        if calendar.isDateInToday(date) { return .phrase(Phrase("today", context: "rules.day")) }
        if calendar.isDateInTomorrow(date) { return .phrase(Phrase("tomorrow", context: "rules.day")) }
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return .text(String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0))
    }
}

/// How many items one limit may count: the store it shields with lists at most 50 applications.
enum ShieldSettingsLimits {
    static let items = 50
}
