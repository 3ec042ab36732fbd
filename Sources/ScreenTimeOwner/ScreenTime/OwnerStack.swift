import DeviceActivity
import Foundation
import ScreenTimePolicy
import ScreenwardBasics
import ScreenwardIPC
import UsageLedger

/// One state owner, built the same way wherever it runs: its ledger and this run as the
/// ledger records runs, the writer that keeps ledger writes off the loop, the live usage
/// the engine reads, the Screen Time service and the host its clients' lines reach, and
/// the built-in rules app. A person's agent builds one for its person; the system daemon
/// one per managed user (`ManagedUserOwner`).
///
/// Everything in it runs on the loop of whoever built it, one use after another: the
/// accountant writing usage, the engine reading it, clients' requests (from a socket, by
/// way of `RequestsOnLoop`), and the rules app (in process, inline). Nothing is locked.
public final class OwnerStack {
    public let ledger: Ledger
    /// This run, as the ledger records runs (an agent's session, the daemon's run).
    public let runID: Int64
    /// Intervals a previous run left open, closed at their last checkpoint when this one began.
    public let recoveredIntervals: Int
    /// Ledger writes, in order, on a writer thread of their own (never the loop: a disk's
    /// fsync there would delay the events the loop must read at once).
    public let sink: BackgroundLedgerSink
    /// What the monitor engine reads, from memory; usage reaches the ledger through it.
    public let usage: LiveUsage
    public let service: ScreenTimeService
    /// The service as its clients' lines reach it.
    public let host: ServiceHost
    public let directory: ItemDirectory
    public let calendar: @Sendable () -> Calendar
    /// Our own rules, once `startRules` ran.
    public private(set) var rules: RulesApp?

    /// What makes a browser's tab a website: the Public Suffix List's addresses, or why
    /// there are none (then the browsers' reports are refused with that reason).
    public enum Websites {
        case counted(WebAddresses)
        case notCounted(because: String)
    }

    /// Opens (creating it if needed) the ledger at `ledgerURL` and begins a run in it.
    /// - Parameters:
    ///   - runBy: the process and display this run is recorded under.
    ///   - report: problems that are not any one client's fault.
    public init(
        ledgerURL: URL, directory: ItemDirectory, runBy display: String, websites: Websites,
        calendar: @escaping @Sendable () -> Calendar = { .current }, report: @escaping @Sendable (String) -> Void
    ) throws {
        ledger = try Ledger(url: ledgerURL)
        let start = try ledger.beginAgentSession(
            pid: ProcessInfo.processInfo.processIdentifier, display: display, at: Date())
        runID = start.sessionID
        recoveredIntervals = start.recoveredIntervals
        sink = try BackgroundLedgerSink(ledger: ledger, sessionID: runID, report: report)
        let minter = directory.minter
        usage = LiveUsage(
            forwardingTo: sink, categories: ApplicationCategories(table: directory.categories, minter: minter),
            websites: WebsiteTokens(minter: minter, table: directory.categories))
        try usage.seed(from: ledger, now: Date())
        self.directory = directory
        self.calendar = calendar
        service = try ScreenTimeService(ledger: ledger, usage: usage, directory: directory, calendar: calendar)
        service.report = report
        switch websites {
        case .counted(let addresses): service.browserTabs = BrowserTabs(addresses: addresses)
        case .notCounted(let reason): service.browserTabsMissing = reason
        }
        host = ServiceHost(service)
    }

    /// Starts our own rules as an app of this owner, reaching it in this process. Pushes to
    /// the rules app go through `later` (onto the loop, after the use that made them), as a
    /// socket's client gets them on its reader's thread: the app is never re-entered from
    /// inside one of its own requests.
    @discardableResult
    public func startRules(
        placement: RulesApp.Placement, texts: RuleTexts, warningLeads: [TimeInterval],
        language: @escaping @Sendable () -> String, notify: @escaping @Sendable (RulesApp.Notice) -> Void,
        report: @escaping @Sendable (String) -> Void,
        observe: ((RulesApp) -> Void)? = nil,
        later: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void
    ) throws -> RulesApp {
        let host = host
        let app = RulesApp(
            placement: placement, ledger: ledger, transport: DirectTransport(handler: host, deferPushes: later),
            owner: RulesApp.Owner(
                usage: { event, from, to in
                    try host.withService {
                        try $0.focusedSeconds(client: RulesApp.bundleIdentifier, of: event, from: from, to: to)
                    }
                }, directory: directory, calendar: calendar),
            texts: texts, warningLeads: warningLeads, language: language, notify: notify, report: report)
        observe?(app)
        try app.start()
        rules = app
        return app
    }

    /// The same person's usage on the household's other computers, as last read
    /// (docs/household.md): it counts toward every event from now on, its past included,
    /// so the engine forgets what it had measured. Run the engine next.
    public func useElsewhere(_ intervals: [ElsewhereInterval]) {
        let minter = directory.minter
        usage.replaceElsewhere(
            with: intervals.compactMap { interval in
                guard let identity = AppIdentity(publicID: interval.publicID, categories: interval.categories) else {
                    return nil
                }
                return LiveUsage.ElsewhereSpan(
                    computer: interval.computer,
                    facts: ApplicationFacts(token: minter.applicationToken(for: identity), identity: identity),
                    start: Date(timeIntervalSince1970: interval.startedAt), duration: interval.duration,
                    webDomain: interval.webDomain)
            })
        service.engine.usageChangedElsewhere()
    }

    /// Every queued write is tried, and the run is recorded as ended.
    public func close(at time: Date = Date(), reason: String) throws {
        sink.flush()
        try ledger.endAgentSession(runID, at: time, reason: reason)
    }
}
