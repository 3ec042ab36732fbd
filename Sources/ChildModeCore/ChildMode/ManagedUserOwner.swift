import DeviceActivity
import Foundation
import ScreenTimeOwner
import ScreenTimePolicy
import ScreenwardBasics
import ScreenwardIPC
import UsageLedger

/// One managed user's state owner inside the daemon: the `OwnerStack` a person's agent
/// builds in individual mode, kept in the daemon's state directory where the child cannot
/// reach it, fed by the agent of the child's session through `AgentIntervals`, with what
/// child mode adds: the relay between the session's agents and the apps' shield extensions,
/// and the browsers' shield pages answered here.
///
/// On the daemon's loop, as everything of the stack's.
public final class ManagedUserOwner {
    public let user: ManagedUser
    public let home: ScreenwardHome
    public let secret: DeviceSecret
    public let stack: OwnerStack
    public var ledger: Ledger { stack.ledger }
    public var service: ScreenTimeService { stack.service }
    /// Between the session's agent, which draws shields, and the apps' shield extensions.
    public let shieldRelay: AgentShieldRelay
    /// The system's calendar (a managed user's day is the computer's).
    public var calendar: @Sendable () -> Calendar { stack.calendar }
    var sink: BackgroundLedgerSink { stack.sink }
    var usage: LiveUsage { stack.usage }
    /// This daemon run, as the ledger records runs.
    var runID: Int64 { stack.runID }
    /// The browsers' shield pages (nil without the shields' defaults).
    public private(set) var webShieldPages: WebShieldPageAnswers?
    /// The questions those pages ask of the apps' extensions.
    public let webShieldQuestions: ServiceShieldQuestions
    /// `service.browserTabsChanges` when the agents were last told of the tabs.
    private var browserTabsTold = 0
    /// Decides what the daemon shields itself, outside any session's agent (a console).
    private let decider: ShieldDecider

    /// Opens (creating if needed) the managed user's home. Intervals a previous run of
    /// the daemon left open are closed at their last checkpoint.
    /// `addresses` (the Public Suffix List's) lets the owner take the browsers' reports;
    /// `shieldDefaults` draws their shield pages.
    public init(
        user: ManagedUser, homes: ChildHomes, catalog: ApplicationCatalog, categories: CategoryTable,
        calendar: @escaping @Sendable () -> Calendar, addresses: WebAddresses? = nil,
        shieldDefaults: ShieldDefaults? = nil,
        note: @escaping @Sendable (String) -> Void = { _ in }, report: @escaping @Sendable (String) -> Void
    ) throws {
        self.user = user
        home = homes.home(for: user.uid)
        try homes.create(for: user.uid)
        secret = try DeviceSecret.loadOrCreate(at: home.deviceSecretURL)
        let minter = TokenMinter(secret: secret)
        decider = ShieldDecider(minter: minter, categories: categories, language: ShieldDefaults.language())
        stack = try OwnerStack(
            ledgerURL: home.ledgerURL,
            directory: ItemDirectory(
                minter: minter, catalog: catalog, categories: categories, builtIn: [ConsoleApplication.identity]),
            runBy: "screenward-daemon",
            websites: addresses.map { .counted($0) }
                ?? .notCounted(
                    because: "websites are not counted in accounts a guardian manages: "
                        + "the daemon has no Public Suffix List (apt-get install publicsuffix)"),
            calendar: calendar, report: report)
        if stack.recoveredIntervals > 0 {
            report(
                "\(user.name): closed \(stack.recoveredIntervals) interval(s) the previous run left open, "
                    + "at their last checkpoint")
        }
        // Pages at an address are no website to use in a managed account (WebShields.addresses).
        stack.service.shieldsAddresses = true
        shieldRelay = AgentShieldRelay(service: stack.service)
        webShieldQuestions = ServiceShieldQuestions(service: stack.service)
        if let shieldDefaults {
            let pages = WebShieldPageAnswers(
                questions: webShieldQuestions, defaults: shieldDefaults, language: ShieldDefaults.language(),
                minter: minter, categories: categories,
                log: { line in note("\(user.name): \(line)") })
            webShieldPages = pages
            shieldRelay.otherAnswer = { answer in pages.received(answer) }
        }
    }

    // MARK: Browsers

    /// After the user's apps were heard from: the browsers' shield pages answered, and the
    /// session's agents told of the browsers' tabs when they changed (they match them to the
    /// focused window).
    public func afterBrowsers(agents: [ServicePeer]) -> [Delivery] {
        var deliveries: [Delivery] = []
        for (event, peer) in service.takeWebShieldEvents() {
            deliveries += webShieldPages?.handle(event, from: peer) ?? []
        }
        if service.browserTabsChanges != browserTabsTold {
            browserTabsTold = service.browserTabsChanges
            deliveries += browserTabsLines(to: agents)
        }
        return deliveries
    }

    /// The browsers' tabs as the hosts reported them last, for `agents`.
    public func browserTabsLines(to agents: [ServicePeer]) -> [Delivery] {
        guard let tabs = service.browserTabs, let line = try? AgentLinkMethods.browserTabs.frame(tabs.latestReports)
        else { return [] }
        return agents.map { Delivery(peer: $0, line: line) }
    }

    /// Where an attached agent's usage reports go.
    public func intervals(continuing handover: AgentIntervals.Handover?, report: @escaping (String) -> Void)
        -> AgentIntervals
    {
        AgentIntervals(sink: usage, continuing: handover, report: report)
    }

    /// The programs the system did not install that a guardian allows this user anyway
    /// (`screenward allow exe:PATH --user`), by path, from when the allowance counts.
    public func allowedExecutables(at time: Date = Date()) -> Set<String> {
        let allowed = (try? ledger.allowedApplications()) ?? []
        return Set(
            allowed.filter { $0.effectiveAt <= time && $0.id.hasPrefix("exe:") }.map { String($0.id.dropFirst(4)) })
    }

    /// The programs a limit of this user's names by path (`screenward limit add … --app
    /// exe:/usr/bin/w3m --user`): a text browser may run where a guardian limits it.
    public func limitedExecutables() -> Set<String> {
        let rules = (try? ledger.rules()) ?? []
        return Set(
            rules.filter { $0.rule.kind == .limit }.flatMap { $0.rule.items?.applications ?? [] }
                .filter { $0.hasPrefix("exe:") }.map { String($0.dropFirst(4)) })
    }

    /// Whether the programs the system did not install are shielded for this user: on
    /// unless an app's store turns it off (`application.denyAppInstallation = false`).
    public var deniesAppInstallation: Bool { service.effectiveShields.deniesAppInstallation(default: true) }

    /// The stores that count for this user now (pushed to their session's agent).
    public var stores: [StoreSettings] { service.effectiveShields.stores }

    /// Whether `identity` is shielded now, by the user's stores or `extra` ones, and by whom.
    public func shieldDecision(for identity: AppIdentity, with extra: [StoreSettings] = []) -> ShieldDecision? {
        decider.decide(identity, in: EffectiveShields(stores: stores + extra))
    }

    /// Usage in `[since, until)`; what this run has open counts up to its last report. With
    /// the household's other computers' as last read (docs/household.md).
    public func usage(since: Date, until: Date, now: Date) throws -> UsageReport {
        sink.flush()
        var report = try ledger.usage(since: since, until: until, liveSessionID: runID, now: now)
        report.elsewhere = try ledger.usageElsewhere(since: since, until: until)
        return report
    }

    /// What an app's report extension is given about this user (the usage written first).
    public func appReportData(calendar: Calendar, language: String) -> AppReportData {
        sink.flush()
        return AppReportData(
            ledger: ledger, directory: service.directory, calendar: calendar, liveSessionID: runID,
            user: DeviceActivityData.User(name: user.name, role: .child), language: language)
    }

    public func report(_ query: ReportQuery, calendar: Calendar, now: Date = Date()) throws -> ActivityReport {
        sink.flush()
        var report = try ledger.activityReport(
            query, calendar: calendar, categories: service.directory.categories, liveSessionID: runID, now: now)
        let elsewhere = try ledger.usageElsewhere(since: report.since, until: report.until)
        if !elsewhere.isEmpty {
            report.elsewhere = elsewhere.map { computer in
                ActivityReport.ComputerTime(
                    name: computer.name, seconds: computer.totalSeconds, mostUsed: computer.apps.map(\.name))
            }
        }
        return report
    }

    /// Every queued write is tried, and the run is recorded as ended.
    public func close(reason: String) {
        try? stack.close(reason: reason)
    }
}
