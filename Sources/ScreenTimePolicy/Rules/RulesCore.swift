@_spi(Screenward) import DeviceActivity
@_spi(Screenward) import FamilyControls
import Foundation
@_spi(Screenward) import ManagedSettings
@_spi(Screenward) import ManagedSettingsUI
import ScreenwardIPC
import UsageLedger

/// The rules app's state and logic, used under `RulesApp`'s lock only.
///
/// What a rule shields is worked out from the rules and the usage at the moment
/// (`reconcile`), never kept as a flag: the activities exist to wake the app exactly
/// when something changes (a limit reached, a day or a downtime beginning or ending,
/// extra time used, a locked rule's delay over), and their callbacks come exactly
/// once, so warnings are not repeated either.
final class RulesCore {
    let placement: RulesApp.Placement
    let ledger: Ledger
    let client: ServiceClient
    let owner: RulesApp.Owner
    let texts: RuleTexts
    /// Longest first.
    let warningLeads: [TimeInterval]
    let language: @Sendable () -> String
    let notify: @Sendable (RulesApp.Notice) -> Void
    let report: @Sendable (String) -> Void
    /// Something for the guardians' record: a kind, who acted (nil: the person), what (a
    /// phrase, for a guardian reading in another language).
    var record: @Sendable (_ kind: String, _ actor: String?, _ what: Phrase) -> Void = { _, _, _ in }
    /// A managed user asked for more time (the guardians are told).
    var onRequest: @Sendable (TimeRequest) -> Void = { _ in }

    /// The app's own tokens for application and category ids (stable: the grant keeps them).
    var applicationTokens: [String: ApplicationToken] = [:]
    var categoryTokens: [String: ActivityCategoryToken] = [:]
    var websiteTokens: [String: WebDomainToken] = [:]
    /// Our stores as last read or written.
    var written: [String: StoreContents] = [:]
    /// Our activities as registered.
    var registered: [DeviceActivityName: ActivityRegistration] = [:]
    /// Callbacks handled (one sent again after a lost acknowledgement does not warn twice).
    var handledCallbacks: Set<Int64> = []

    static let maximumRules = 40
    /// What a limit's usage may lack at its own callback (the engine's crossing and our
    /// sum of the same intervals may differ by rounding).
    static let tolerance: TimeInterval = 0.01

    init(
        placement: RulesApp.Placement, ledger: Ledger, client: ServiceClient, owner: RulesApp.Owner, texts: RuleTexts,
        warningLeads: [TimeInterval], language: @escaping @Sendable () -> String,
        notify: @escaping @Sendable (RulesApp.Notice) -> Void,
        report: @escaping @Sendable (String) -> Void
    ) {
        self.placement = placement
        self.ledger = ledger
        self.client = client
        self.owner = owner
        self.texts = texts
        // Whole seconds, at least one: they name the warning events.
        self.warningLeads = Array(Set(warningLeads.map { max(1, $0.rounded()) })).sorted(by: >)
        self.language = language
        self.notify = notify
        self.report = report
    }

    var now: Date { owner.now() }
    var calendar: Calendar { owner.calendar() }

    // MARK: Starting

    func start(
        callback: @escaping @Sendable (MonitorCallbackMessage) -> Void,
        configure: @escaping @Sendable (ShieldConfigurationRequest) -> Void,
        action: @escaping @Sendable (ShieldActionRequest) -> Void
    ) throws {
        let key = Data((0..<32).map { _ in UInt8.random(in: .min ... .max) }).base64EncodedString()
        _ = try ledger.authorize(client: RulesApp.bundleIdentifier, member: RulesApp.member, grantKey: key, at: now)
        let transport = client.transport
        let report = report
        transport.setPushReceiver { frame in
            guard let message = try? ActivityMethods.callback.body(from: frame) else {
                return report("rules: ignored a push that is not a monitor callback")
            }
            callback(message)
        }
        transport.setPushReceiver(forKind: ShieldConfigurationMethods.configure.name) { frame in
            if let request = try? ShieldConfigurationMethods.configure.body(from: frame) { configure(request) }
        }
        transport.setPushReceiver(forKind: ShieldActionMethods.action.name) { frame in
            if let request = try? ShieldActionMethods.action.body(from: frame) { action(request) }
        }
        _ = try client.call(ActivityMethods.attachMonitor, Empty())
        _ = try client.call(ShieldConfigurationMethods.attach, Empty())
        _ = try client.call(ShieldActionMethods.attach, Empty())
        registered = Dictionary(
            try client.call(ActivityMethods.list, Empty()).map { ($0.name, $0) }, uniquingKeysWith: { $1 })
        try applyDueRelaxations()
        try syncActivities()
        reconcile()
    }

    // MARK: Tokens

    /// The app's token for each application id (an id nothing is installed under is refused).
    func tokens(applications ids: [String]) throws -> [String: ApplicationToken] {
        let missing = ids.filter { applicationTokens[$0] == nil }
        for id in missing {
            let selection = try client.call(AuthorizationMethods.issueSelection, SelectionRequest(applications: [id]))
            applicationTokens[id] = selection.applicationTokens.first
        }
        return Dictionary(
            ids.compactMap { id in applicationTokens[id].map { (id, $0) } }, uniquingKeysWith: { a, _ in a })
    }

    func tokens(categories ids: [String]) throws -> [String: ActivityCategoryToken] {
        for id in ids where categoryTokens[id] == nil {
            let selection = try client.call(AuthorizationMethods.issueSelection, SelectionRequest(categories: [id]))
            categoryTokens[id] = selection.categoryTokens.first
        }
        return Dictionary(ids.compactMap { id in categoryTokens[id].map { (id, $0) } }, uniquingKeysWith: { a, _ in a })
    }

    func tokens(websites names: [String]) throws -> [String: WebDomainToken] {
        for name in names where websiteTokens[name] == nil {
            let selection = try client.call(AuthorizationMethods.issueSelection, SelectionRequest(webDomains: [name]))
            websiteTokens[name] = selection.webDomainTokens.first
        }
        return Dictionary(
            names.compactMap { name in websiteTokens[name].map { (name, $0) } }, uniquingKeysWith: { a, _ in a })
    }

    /// What a limit counts, in the app's tokens.
    func event(for items: RuleItems, threshold: TimeInterval) throws -> DeviceActivityEvent {
        var applications = Set(try tokens(applications: items.applications).values)
        applications.formUnion(items.applicationTokens.map { ApplicationToken(opaqueValue: $0) })
        var categories = Set(try tokens(categories: items.categories).values)
        categories.formUnion(items.categoryTokens.map { ActivityCategoryToken(opaqueValue: $0) })
        return DeviceActivityEvent(
            applications: applications, categories: categories,
            webDomains: Set(try tokens(websites: items.websites).values),
            threshold: Self.components(threshold), includesPastActivity: true)
    }

    static func components(_ seconds: TimeInterval) -> DateComponents {
        let whole = Int(seconds.rounded(.down))
        let nanoseconds = Int(((seconds - Double(whole)) * 1e9).rounded())
        return DateComponents(second: whole, nanosecond: nanoseconds == 0 ? nil : nanoseconds)
    }

    // MARK: Callbacks

    func received(callback message: MonitorCallbackMessage) {
        defer {
            do { _ = try client.call(ActivityMethods.acknowledge, [message.sequence]) } catch {
                report("rules: could not acknowledge callback \(message.sequence): \(error)")
            }
        }
        guard handledCallbacks.insert(message.sequence).inserted else { return }
        if handledCallbacks.count > 4096, let oldest = handledCallbacks.min() { handledCallbacks.remove(oldest) }
        let (prefix, ruleName) = ActivityNaming.parse(message.activity)
        let rule = try? ledger.rules().first { $0.rule.name.caseInsensitiveCompare(ruleName) == .orderedSame }?.rule
        switch (prefix, message.kind) {
        case (.limit, .eventDidReachThreshold), (.extra, .eventDidReachThreshold):
            if let event = message.event?.rawValue, let lead = ActivityNaming.warningLead(event), let rule {
                warnOfLimit(rule, lead: lead, from: prefix)
            }
        case (.downtime, .intervalWillStartWarning):
            if let rule, let lead = warningLeads.first,
                downtimeApplies(rule, intervalStart: message.context.interval.start)
            {
                warnOfDowntime(rule, lead: lead, start: message.context.interval.start)
            }
        case (.downtimeWarning, .intervalWillStartWarning):
            if let rule, let lead = ActivityNaming.warningLead(message.activity.rawValue),
                downtimeApplies(rule, intervalStart: message.context.interval.start)
            {
                warnOfDowntime(rule, lead: lead, start: message.context.interval.start)
            }
        case (.relax, .intervalDidEnd):
            do { try applyDueRelaxations() } catch {
                report("rules: could not apply a relaxation that came due: \(error)")
            }
        default:
            break
        }
        reconcile()
    }

    private func warnOfLimit(_ rule: Rule, lead: TimeInterval, from prefix: ActivityNaming.Prefix) {
        guard let state = try? limitState(rule), state.appliesToday, !state.isUsedUp else { return }
        // The daily activity's warnings are for the daily limit; once extra time was
        // given, the extra activity's are the ones that count.
        guard (prefix == .extra) == (state.extraTime > 0 || state.unlimited) else { return }
        let language = language()
        let values = ["rule": rule.name, "left": RuleTexts.span(lead, language: language)]
        notify(
            RulesApp.Notice(
                title: texts.text("limitWarningTitle", language: language, values),
                body: texts.text("limitWarningBody", language: language, values)))
    }

    private func warnOfDowntime(_ rule: Rule, lead: TimeInterval, start: Date) {
        let language = language()
        let values = ["rule": rule.name, "left": RuleTexts.span(lead, language: language), "start": timeText(start)]
        notify(
            RulesApp.Notice(
                title: texts.text("downtimeWarningTitle", language: language, values),
                body: texts.text("downtimeWarningBody", language: language, values)))
    }

    func timeText(_ date: Date) -> String {
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        return String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
    }
}

/// How the rules app names its activities: `limit.Games`, `downtime.Bedtime`, … and
/// its warning events `warning.300` (seconds before).
enum ActivityNaming {
    enum Prefix: String {
        /// A limit's day: events `used-up` and `warning.N`.
        case limit
        /// Extra time on a limit (until the day ends) or on a downtime (per application).
        case extra
        /// A downtime's intervals, warned of with the longest lead.
        case downtime
        /// The same intervals, warned of with another lead: `downtime-warning.60.Bedtime`.
        case downtimeWarning = "downtime-warning"
        /// Wakes the app when a locked rule's relaxation comes due.
        case relax
        /// Wakes the app when a pause ends.
        case pause
        case unknown
    }

    static func name(_ prefix: Prefix, _ rule: String) -> DeviceActivityName {
        DeviceActivityName("\(prefix.rawValue).\(rule)")
    }

    static func downtimeWarning(_ rule: String, lead: TimeInterval) -> DeviceActivityName {
        DeviceActivityName("\(Prefix.downtimeWarning.rawValue).\(leadText(lead)).\(rule)")
    }

    static func warningEvent(_ lead: TimeInterval) -> DeviceActivityEvent.Name {
        DeviceActivityEvent.Name("warning.\(leadText(lead))")
    }
    static let usedUpEvent = DeviceActivityEvent.Name("used-up")
    static let relaxActivity = DeviceActivityName("relax.all")
    static let pauseActivity = DeviceActivityName("pause.all")

    /// Leads are whole seconds.
    static func leadText(_ lead: TimeInterval) -> String { String(Int(lead.rounded())) }

    /// The prefix and the rule's name.
    static func parse(_ name: DeviceActivityName) -> (Prefix, String) {
        let text = name.rawValue
        guard let dot = text.firstIndex(of: ".") else { return (.unknown, text) }
        let prefix = Prefix(rawValue: String(text[..<dot])) ?? .unknown
        var rest = String(text[text.index(after: dot)...])
        if prefix == .downtimeWarning, let second = rest.firstIndex(of: ".") {
            rest = String(rest[rest.index(after: second)...])
        }
        return (prefix, rest)
    }

    /// The lead of `warning.300` or of `downtime-warning.300.Bedtime`.
    static func warningLead(_ text: String) -> TimeInterval? {
        let parts = text.split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0] == "warning" || parts[0] == Prefix.downtimeWarning.rawValue,
            let seconds = Int(parts[1])
        else { return nil }
        return TimeInterval(seconds)
    }
}
