@_spi(Screenward) import DeviceActivity
import Foundation
@_spi(Screenward) import ManagedSettings
@_spi(Screenward) import ManagedSettingsUI
import ScreenwardIPC

/// "Ask for more time": a managed user asks from the shield, a guardian answers, the
/// shield lifts for what was granted (or is redrawn "Not approved").
extension RulesCore {
    /// Pending requests, and those asked or answered today.
    func requests() throws -> [TimeRequest] {
        try ledger.timeRequests(since: calendar.startOfDay(for: now))
    }

    /// The latest request for `rule` and `application` in the interval running now.
    func latestRequest(rule: Rule, application: String) -> TimeRequest? {
        guard let interval = currentInterval(of: rule) else { return nil }
        return ((try? ledger.timeRequests(since: interval.start)) ?? []).last {
            $0.rule.caseInsensitiveCompare(rule.name) == .orderedSame && $0.application == application
                && $0.askedAt >= interval.start
        }
    }

    /// The child pressed "Ask for more time" on `rule`'s shield of `application`.
    func askForMoreTime(rule: Rule, application: String, name: String) {
        do {
            let (request, isNew) = try ledger.askForTime(
                rule: rule.name, application: application, applicationName: name, at: now)
            guard isNew else { return }
            let values = ["app": name, "rule": rule.name, "id": "\(request.id)"]
            record(
                "time-requested", nil,
                Phrase("asked for more time for {app} on {rule} (request {id})", context: "event", values))
            onRequest(request)
        } catch {
            report("rules: could not record a request for more time: \(error)")
        }
    }

    /// "Ask for more time…" from the tray: for all of a used-up limit (the request names
    /// the limit, as its shield's would name the application).
    func askForMoreTime(onLimit name: String) throws -> RuleOutcome {
        guard placement == .managed else {
            throw ServiceError(
                .invalidArgument,
                Phrase("your own rules give 15 more minutes (screenward limit more NAME)", context: "rules"))
        }
        let rule = try existing(name, kind: .limit)
        guard try limitState(rule).isUsedUp else {
            throw ServiceError(
                .invalidArgument,
                Phrase("{name} is not used up: there is time left", context: "rules", ["name": rule.name]))
        }
        askForMoreTime(rule: rule, application: "", name: rule.name)
        return RuleOutcome(Phrase("Asked a guardian for more time on {name}.", context: "rules", ["name": rule.name]))
    }

    /// A guardian's answer: extra time on the rule (all of a limit; one application of a
    /// downtime) for the interval running now, or a refusal. The child is told either way.
    func answerRequest(_ id: Int64, approve: Bool, seconds: TimeInterval?, by actor: String) throws -> RuleOutcome {
        guard let request = try ledger.timeRequest(id: id) else {
            throw ServiceError(.invalidArgument, Phrase("there is no request {id}", context: "rules", ["id": "\(id)"]))
        }
        guard request.state == .pending else {
            let values =
                ["id": "\(id)", "state": request.state.phrase, "by": request.answeredBy ?? ""]
                as [String: any PhraseFilling]
            throw ServiceError(
                .invalidArgument,
                request.answeredBy == nil
                    ? Phrase("request {id} was already answered ({state})", context: "rules", values)
                    : Phrase("request {id} was already answered ({state} by {by})", context: "rules", values))
        }
        if let seconds, seconds < 1 || seconds > 86_400 {
            throw ServiceError(
                .invalidArgument, Phrase("grant 1 to 1440 minutes, or the rest of the day", context: "rules"))
        }
        let time = now
        guard
            let rule = try storedRules().first(where: { $0.name.caseInsensitiveCompare(request.rule) == .orderedSame }),
            let interval = currentInterval(of: rule)
        else {
            _ = try ledger.answerTimeRequest(id: id, state: .expired, by: actor, seconds: nil, at: time)
            throw ServiceError(
                .invalidArgument,
                Phrase(
                    "request {id} is for {rule}, which no longer holds {app} back: nothing to grant", context: "rules",
                    ["id": "\(id)", "rule": request.rule, "app": request.applicationName]))
        }
        let language = language()
        var event: [String: any PhraseFilling] = [
            "guardian": actor, "app": request.applicationName, "rule": rule.name, "id": "\(id)",
        ]
        guard approve else {
            _ = try ledger.answerTimeRequest(id: id, state: .denied, by: actor, seconds: nil, at: time)
            // swift-format-ignore
            record("time-denied", actor, Phrase("{guardian} did not approve more time for {app} on {rule} (request {id})", context: "event", event))
            redrawShields()
            notify(
                RulesApp.Notice(
                    title: "\(texts.text("notApproved", language: language)): \(rule.name)",
                    body: texts.text(
                        "notApprovedBody", language: language,
                        ["rule": rule.name, "by": actor, "app": request.applicationName])))
            return RuleOutcome(
                Phrase(
                    "Not approved: more time for {app} on {rule}.", context: "rules",
                    ["app": request.applicationName, "rule": rule.name]))
        }
        guard try ledger.answerTimeRequest(id: id, state: .approved, by: actor, seconds: seconds, at: time) else {
            throw ServiceError(
                .invalidArgument, Phrase("request {id} was answered meanwhile", context: "rules", ["id": "\(id)"]))
        }
        try ledger.insertRuleGrant(
            rule: rule.name, application: rule.kind == .downtime ? request.application : nil, seconds: seconds,
            by: actor, at: time, interval: interval,
            requestID: id)
        if let seconds { event["extra"] = RuleTexts.spanPhrase(seconds) }
        // swift-format-ignore
        let given =
            seconds == nil
            ? Phrase("{guardian} gave the rest of the day more for {app} on {rule} (request {id})", context: "event", event)
            : Phrase("{guardian} gave {extra} more for {app} on {rule} (request {id})", context: "event", event)
        record("time-approved", actor, given)
        try registerExtraTime(for: rule)
        reconcile()
        redrawShields()
        notify(
            RulesApp.Notice(
                title: texts.text(
                    "extraTimeTitle", language: language,
                    ["extra": seconds.map { RuleTexts.span($0, language: language) } ?? "∞", "rule": rule.name]),
                body: texts.text("extraTimeBody", language: language, ["rule": rule.name, "by": actor])))
        let values = ["app": request.applicationName, "rule": rule.name] as [String: any PhraseFilling]
        return RuleOutcome(
            seconds.map {
                Phrase(
                    "Approved: {extra} more for {app} on {rule}.", context: "rules",
                    values.merging(["extra": RuleTexts.spanPhrase($0)]) { a, _ in a })
            } ?? Phrase("Approved: the rest of the day for {app} on {rule}.", context: "rules", values))
    }

    /// Extra time given on another computer of the household, now kept in the ledger
    /// (docs/household.md): it counts here as there, a shield it lifts here lifts, and the
    /// child is told.
    func extraTimeGivenElsewhere(_ grants: [SharedExtraTime]) throws {
        let rules = try storedRules().filter { $0.kind == .limit }
        let named = rules.filter { rule in
            grants.contains { $0.rule.caseInsensitiveCompare(rule.name) == .orderedSame }
        }
        for rule in named { try registerExtraTime(for: rule) }
        reconcile()
        redrawShields()
        let language = language()
        for grant in grants {
            record("time-approved", grant.grantedBy, Self.givenElsewhere(grant))
            notify(
                RulesApp.Notice(
                    title: texts.text(
                        "extraTimeTitle", language: language,
                        [
                            "extra": grant.seconds.map { RuleTexts.span($0, language: language) } ?? "∞",
                            "rule": grant.rule,
                        ]),
                    body: texts.text("extraTimeBody", language: language, ["rule": grant.rule, "by": grant.grantedBy])))
        }
    }

    /// What the guardians' record says of extra time given on another computer.
    private static func givenElsewhere(_ grant: SharedExtraTime) -> Phrase {
        var values: [String: any PhraseFilling] = ["guardian": grant.grantedBy, "rule": grant.rule]
        if let seconds = grant.seconds { values["extra"] = RuleTexts.spanPhrase(seconds) }
        if let computer = grant.computer { values["computer"] = computer }
        // swift-format-ignore
        switch (grant.seconds, grant.computer) {
        case (.some, .some): return Phrase("{guardian} gave {extra} more on {rule} on {computer}; it counts on this computer too", context: "event", values)
        case (.some, nil): return Phrase("{guardian} gave {extra} more on {rule} on another computer; it counts on this computer too", context: "event", values)
        case (nil, .some): return Phrase("{guardian} gave the rest of the day more on {rule} on {computer}; it counts on this computer too", context: "event", values)
        case (nil, nil): return Phrase("{guardian} gave the rest of the day more on {rule} on another computer; it counts on this computer too", context: "event", values)
        }
    }

    /// Extra time on every limit that applies today.
    func giveExtraTime(_ seconds: TimeInterval?, by actor: String) throws -> RuleOutcome {
        let time = now
        let limits = try storedRules().filter { $0.kind == .limit }.filter {
            (try? limitState($0, at: time).appliesToday) == true
        }
        guard !limits.isEmpty else {
            throw ServiceError(.invalidArgument, Phrase("no limit applies today", context: "rules"))
        }
        for rule in limits {
            try ledger.insertRuleGrant(
                rule: rule.name, application: nil, seconds: seconds, by: actor, at: time,
                interval: try limitState(rule, at: time).day)
            try registerExtraTime(for: rule)
        }
        reconcile()
        redrawShields()
        var given: [String: any PhraseFilling] = [
            "guardian": actor, "rules": limits.map(\.name).joined(separator: ", "),
        ]
        if let seconds { given["extra"] = RuleTexts.spanPhrase(seconds) }
        // swift-format-ignore
        let event =
            seconds == nil
            ? Phrase("{guardian} gave the rest of the day more on {rules} at the child's desktop", context: "event", given)
            : Phrase("{guardian} gave {extra} more on {rules} at the child's desktop", context: "event", given)
        record("time-approved", actor, event)
        let language = language()
        notify(
            RulesApp.Notice(
                title: texts.text(
                    "extraTimeTitle", language: language,
                    [
                        "extra": seconds.map { RuleTexts.span($0, language: language) } ?? "∞",
                        "rule": limits.map(\.name).joined(separator: ", "),
                    ]),
                body: texts.text(
                    "extraTimeBody", language: language,
                    ["rule": limits.map(\.name).joined(separator: ", "), "by": actor])))
        let names = limits.map(\.name).joined(separator: ", ")
        return RuleOutcome(
            seconds.map {
                Phrase(
                    "{extra} more on {rules}.", context: "rules", ["extra": RuleTexts.spanPhrase($0), "rules": names])
            } ?? Phrase("The rest of the day on {rules}.", context: "rules", ["rules": names]))
    }

    /// No rule shields anything for `seconds` (a guardian's pause, or the person's own).
    func pause(for seconds: TimeInterval, by actor: String) throws -> RuleOutcome {
        guard (60...86_400).contains(seconds) else {
            throw ServiceError(.invalidArgument, Phrase("pause for 1 minute to 1 day", context: "rules"))
        }
        if placement == .individual, let lock = try storedRules().compactMap(\.lockedFor).max() {
            throw ServiceError(
                .invalidArgument,
                Phrase(
                    "a rule is locked for {lock}: pausing it would undo the lock; relax the rule instead",
                    context: "rules",
                    ["lock": RuleTexts.spanPhrase(lock)]))
        }
        let time = now
        let interval = DateInterval(start: time, duration: seconds)
        try ledger.insertRuleGrant(
            rule: Self.pauseRule, application: nil, seconds: nil, by: actor, at: time, interval: interval)
        try register(
            ActivityRegistration(
                name: ActivityNaming.pauseActivity, schedule: oneOff(from: time, to: interval.end), events: [:]))
        reconcile()
        record(
            "rules-paused", actor,
            Phrase(
                "{guardian} paused every rule until {time}", context: "event",
                ["guardian": actor, "time": timeText(interval.end)]))
        return RuleOutcome(
            Phrase("Every rule is paused until {time}.", context: "rules", ["time": timeText(interval.end)]),
            effectiveAt: interval.end)
    }

    /// Asks every shield of ours to be drawn again (attaching the data source again does).
    func redrawShields() {
        do { _ = try client.call(ShieldConfigurationMethods.attach, Empty()) } catch {
            report("rules: could not ask for the shields to be redrawn: \(error)")
        }
    }
}
