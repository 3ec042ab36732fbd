import Foundation
@_spi(Screenward) import ManagedSettings
@_spi(Screenward) import ManagedSettingsUI
import ScreenwardBasics
import ScreenwardIPC

/// The rules' shield: which rule, how much was used, when it resets; and its buttons.
extension RulesCore {
    /// The rule whose store covers `subject` now: a used-up limit first, else a downtime.
    func coveringRule(_ subject: ShieldRequestSubject) -> Rule? {
        let (application, category, website): (ApplicationToken?, ActivityCategoryToken?, WebDomainToken?) =
            switch subject {
            case .application(let app): (app.token, nil, nil)
            case .applicationInCategory(let app, let category): (app.token, category.token, nil)
            case .webDomain(let domain), .webDomainInCategory(let domain, _): (nil, nil, domain.token)
            }
        let rules = (try? storedRules()) ?? []
        for rule in rules where rule.kind == .limit {
            guard let shield = written[Self.storeName(rule.name)]?.shield else { continue }
            if let application, shield.applications?.contains(application) == true { return rule }
            if let website, shield.webDomains?.contains(website) == true { return rule }
            if let category, case .specific(let categories, _) = shield.applicationCategories,
                categories.contains(category)
            {
                return rule
            }
        }
        return rules.first {
            $0.kind == .downtime && written[Self.storeName($0.name)]?.shield.applicationCategories != nil
        }
    }

    func received(configure request: ShieldConfigurationRequest) {
        let configuration = configuration(for: request.subject)
        do {
            _ = try client.call(
                ShieldConfigurationMethods.answer,
                ShieldConfigurationAnswer(id: request.id, configuration: configuration))
        } catch {
            report("rules: could not answer a shield configuration request: \(error)")
        }
    }

    func configuration(for subject: ShieldRequestSubject) -> ShieldConfiguration {
        guard let rule = coveringRule(subject) else { return ShieldConfiguration() }
        let language = language()
        let appName = Self.name(of: subject)
        var values = ["rule": rule.name, "app": appName]
        var configuration = ShieldConfiguration()
        let white = ShieldColor(red: 1, green: 1, blue: 1)
        let soft = ShieldColor(red: 0.92, green: 0.92, blue: 0.96, alpha: 0.8)
        switch rule.kind {
        case .limit:
            guard let state = try? limitState(rule) else { return configuration }
            values["used"] = RuleTexts.span(state.used, language: language)
            values["limit"] = RuleTexts.span(state.allowance, language: language)
            values["reset"] = resetText(state.day.end, language: language)
            configuration.title = .init(text: texts.text("limitTitle", language: language, values), color: white)
            configuration.subtitle = .init(text: texts.text("limitSubtitle", language: language, values), color: soft)
        case .downtime:
            values["end"] = downtimeState(rule).interval.map { timeText($0.end) } ?? "?"
            configuration.title = .init(text: texts.text("downtimeTitle", language: language, values), color: white)
            configuration.subtitle = .init(
                text: texts.text("downtimeSubtitle", language: language, values), color: soft)
        }
        configuration.primaryButtonLabel = .init(text: texts.text("close", language: language, values), color: white)
        if let secondary = secondaryButton(for: rule, application: Self.token(of: subject)) {
            configuration.secondaryButtonLabel = .init(
                text: texts.text(secondary, language: language, values),
                color: ShieldColor(red: 0.04, green: 0.52, blue: 1))
        }
        return configuration
    }

    /// The secondary button's text, or nil for none: "15 more minutes" on one's own rule
    /// (while the rule allows it today); for a managed user, "Ask for more time", then
    /// "Waiting for a guardian…" while the request is pending, "Not approved" after a no.
    func secondaryButton(for rule: Rule, application: String?) -> String? {
        switch placement {
        case .individual:
            guard let interval = currentInterval(of: rule), let taken = try? extraTimeTaken(on: rule, in: interval),
                taken < rule.extraTimePerDay
            else {
                return nil
            }
            return "fifteenMoreMinutes"
        case .managed:
            guard let application else { return nil }
            switch latestRequest(rule: rule, application: application)?.state {
            case .pending: return "waitingForGuardian"
            case .denied: return "notApproved"
            default: return "askForMoreTime"
            }
        }
    }

    /// The app's own token for the shielded application or website (a request for more
    /// time names it).
    static func token(of subject: ShieldRequestSubject) -> String? {
        switch subject {
        case .application(let app), .applicationInCategory(let app, _): app.token?.opaqueValue
        case .webDomain(let domain), .webDomainInCategory(let domain, _): domain.token?.opaqueValue
        }
    }

    /// The limit's day, or the downtime running now.
    func currentInterval(of rule: Rule) -> DateInterval? {
        switch rule.kind {
        case .limit: return try? limitState(rule).day
        case .downtime:
            let state = downtimeState(rule)
            return state.isActive ? state.interval : nil
        }
    }

    func resetText(_ date: Date, language: String) -> String {
        let time = timeText(date)
        let tomorrow =
            calendar.date(byAdding: .day, value: 1, to: calendar.startOfDay(for: now)).map {
                calendar.isDate(date, inSameDayAs: $0)
            } ?? false
        if tomorrow { return texts.text("resetTomorrow", language: language, ["time": time]) }
        return texts.text(
            "resetAt", language: language, ["time": time, "day": Translations.forLanguage(language)(day(date))])
    }

    static func name(of subject: ShieldRequestSubject) -> String {
        switch subject {
        case .application(let app), .applicationInCategory(let app, _):
            app.localizedDisplayName ?? app.bundleIdentifier ?? "this application"
        case .webDomain(let domain), .webDomainInCategory(let domain, _): domain.domain ?? "this site"
        }
    }

    // MARK: Buttons

    func received(action request: ShieldActionRequest) {
        let response = response(to: request)
        do {
            _ = try client.call(ShieldActionMethods.answer, ShieldActionAnswer(id: request.id, response: response))
        } catch {
            report("rules: could not answer a shield action: \(error)")
        }
    }

    func response(to request: ShieldActionRequest) -> ShieldActionResponse {
        guard request.action == .secondaryButtonPressed else { return .close }
        let token = Self.token(of: request.subject)
        guard let rule = coveringRule(request.subject), let button = secondaryButton(for: rule, application: token)
        else { return .none }
        switch button {
        case "fifteenMoreMinutes":
            do {
                _ = try takeExtraTime(on: rule.name, application: nil, token: rule.kind == .downtime ? token : nil)
                // The store changed: the shield goes with it.
                return .none
            } catch {
                report("rules: \"15 more minutes\" on \(rule.name) was refused: \(error)")
                return .defer
            }
        case "askForMoreTime", "notApproved":
            guard let token else { return .none }
            askForMoreTime(rule: rule, application: token, name: Self.name(of: request.subject))
            // Redrawn as waiting for a guardian.
            return .defer
        default:
            return .defer
        }
    }
}
