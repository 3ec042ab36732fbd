import Foundation
import GLibRuntime
import GtkBase
import ScreenwardCore
import ScreenwardIPC
import SessionDisplay
import SystemAccounts
import X11Session

/// A person's own agent: the session's events (`SessionTracker`) and the Screen Time
/// API's state owner (`OwnerStack`) on one main loop, in the manner of xss-lock: X events,
/// the idle alarms, timers, signals and clients' requests all arrive as callbacks on the
/// same thread, so nothing here needs a lock.
final class Agent {
    private let log: AgentLog
    private let home: ScreenwardHome
    private let lock: AgentLock
    /// The Screen Time API's state owner for this person, on this loop.
    private let owner: OwnerStack
    private var ledger: Ledger { owner.ledger }
    private var sessionID: Int64 { owner.runID }
    private var sink: BackgroundLedgerSink { owner.sink }
    private var host: ServiceHost { owner.host }
    /// The display it follows: X11, or a Wayland compositor's.
    private let display: AgentDisplay
    private let loop: MainLoop
    private let identities: Identities
    /// The focus, idle time, logind and the accountant, whose usage goes to the owner.
    private let tracker: SessionTracker
    private var accountant: UsageAccountant { tracker.accountant }
    private var lastStatus: AgentStatus?
    /// The owner's socket, and the one timer that wakes the engine at its next deadline.
    private let minter: TokenMinter
    private let categories: CategoryTable
    private var server: SocketServer?
    private var deadlineTimer: WallClockTimer?
    private var zoneCheckedAt = Date.distantPast
    /// Shields over shielded applications: on X11 over each window, on an X connection of their
    /// own; on Wayland over the output, in the overlay layer.
    private var presenter: (any SessionShields)?
    /// The browsers' shield pages: their looks and buttons.
    private var webShieldPages: WebShieldPages?
    /// Apps' extensions, started when needed.
    private var extensions: AgentExtensions?
    /// The person's own rules (`screenward limit`, `downtime`, `allow`).
    private var rules: RulesApp?
    private let directory: ItemDirectory
    private let warningLeads: [TimeInterval]

    init(display choice: AgentDisplay.Choice, idleThreshold: Duration, warningLeads: [TimeInterval], log: AgentLog)
        throws
    {
        GtkToolkit.disableGLUnlessChosen()  // before any thread starts: see there
        GtkToolkit.deferDesktopTheme()  // shields draw themselves: see there
        self.log = log
        self.warningLeads = warningLeads
        home = ScreenwardHome.fromEnvironment()
        try home.create()
        lock = try AgentLock.acquire(in: home)
        let secret = try DeviceSecret.loadOrCreate(at: home.deviceSecretURL)
        let loop = MainLoop()
        self.loop = loop
        display = try AgentDisplay.open(choice, loop: loop, idleThreshold: idleThreshold) { [log] line in
            log.warning(line)
        }

        identities = Identities(resolver: Self.loadResolver(log: log))

        minter = TokenMinter(secret: secret)
        categories = try DataDirectory.categoryTable()
        directory = ItemDirectory(minter: minter, catalog: identities.resolver.catalog, categories: categories)
        owner = try OwnerStack(
            ledgerURL: home.ledgerURL, directory: directory, runBy: display.name,
            websites: Self.websites(log: log)
        ) { [log] problem in log.warning(problem) }
        if owner.recoveredIntervals > 0 {
            log.warning(
                "closed \(owner.recoveredIntervals) interval(s) a previous run left open, at their last checkpoint")
        }
        owner.service.onCallbacks = { [log] callbacks in
            for callback in callbacks { log.info("monitor: \(callback)") }
        }
        // The accountant writes through the live usage (the engine's view) to the ledger.
        tracker = SessionTracker(
            display: display.backend, loop: loop,
            sink: owner.usage, minter: minter, idleThreshold: idleThreshold, lockSource: .logindAndIdle, log: log)
    }

    private static func websites(log: AgentLog) -> OwnerStack.Websites {
        do {
            return .counted(WebAddresses(suffixes: try PublicSuffixList.load()))
        } catch {
            log.warning("websites are not counted: \(error)")
            return .notCounted(because: "websites are not counted: \(error)")
        }
    }

    func run() throws {
        display.backend.onConnectionLost { [self] in
            // Called from inside Xlib (which ends the process right after), or from the loop.
            let now = SystemTimeSource().now()
            accountant.stop(at: now, reason: .connectionLost)
            try? owner.close(at: now.wall, reason: "connection-lost")
            log.info("the display \(display.name) closed the connection: the session has ended; usage saved")
            exit(0)
        }
        display.attach(to: loop)
        loop.onSignal(SIGTERM) { [self] in stop(reason: "SIGTERM") }
        loop.onSignal(SIGINT) { [self] in stop(reason: "SIGINT") }
        // Applications installed or removed since the start: re-read the desktop entries.
        loop.onSignal(SIGHUP) { [self] in
            identities.reload(Self.loadResolver(log: log))
            extensions?.reload()
        }

        try startService()
        startShields()
        tracker.counted = { [unowned self] observation in counted(observation) }
        tracker.changed = { [unowned self] in stateChanged() }
        tracker.start(
            logindMissing: { [log] error in
                log.info(
                    "no logind on the system bus: screen lock is not detected; "
                        + "suspend is still detected from the clocks (\(error))")
            },
            afterFocus: { [unowned self] observation in presenter?.focusChanged(observation) })
        log.info(
            "tracking \(tracker.display.name) (\(tracker.display.focusSource), idle after "
                + "\(Int(tracker.idleThreshold.seconds)) s); ledger \(home.ledgerURL.path)")
        loop.run()
    }

    /// What counts for the focused window: its application and the website it shows (from
    /// its browser's latest report); nothing in front of a shield or a browser's shield page.
    private func counted(_ observation: FocusObservation) -> (app: AppIdentity?, site: Website?) {
        // Time in front of a shield is nobody's usage.
        guard observation.window != nil, !(presenter?.holdsFocus(observation) ?? false), !observation.isTheAgentsOwn,
            let facts = observation.facts
        else { return (nil, nil) }
        let app = identity(for: facts)
        return host.withService { $0.browserTabs?.counted(app, windowPID: facts.pid, title: facts.title) } ?? (app, nil)
    }

    private static func loadResolver(log: AgentLog) -> AppResolver {
        let (catalog, problems) = ApplicationCatalog.loadFromEnvironment(ProcessInfo.processInfo.environment)
        for problem in problems.prefix(20) { log.warning("desktop entry skipped: \(problem)") }
        log.info("\(catalog.entries.count) applications in the catalog")
        return AppResolver(catalog: catalog, processes: ProcfsInspector())
    }

    private func identity(for facts: WindowFacts) -> AppIdentity {
        identities.identity(for: facts)
    }

    /// Runs the engine and tells `screenward status` what changed.
    private func stateChanged() {
        // Presence gates interval callbacks; the focus changes threshold predictions.
        let present = tracker.isPresent
        host.withService { $0.isPresent = present }
        runEngine()
        let status = AgentStatus(
            sessionID: sessionID, pid: ProcessInfo.processInfo.processIdentifier, display: display.name,
            focusedID: accountant.focused?.publicID, focusedName: accountant.focused?.displayName,
            isIdle: accountant.isIdle, isLocked: accountant.isLocked, idleThreshold: tracker.idleThreshold.seconds,
            updatedAt: lastStatus?.updatedAt ?? Date())
        guard
            status.focusedID != lastStatus?.focusedID || status.focusedName != lastStatus?.focusedName
                || status.isIdle != lastStatus?.isIdle || status.isLocked != lastStatus?.isLocked || lastStatus == nil
        else { return }
        var stamped = status
        stamped.updatedAt = Date()
        lastStatus = stamped
        let recorded = stamped
        sink.write { try $0.recordStatus(recorded) }
    }

    // MARK: The Screen Time API

    /// Listens for API clients. Requests hop from the socket's threads onto the loop, where
    /// the owner answers them; the deadline is re-armed after each.
    private func startService() throws {
        deadlineTimer = try WallClockTimer { [self] wake in
            if wake == .clockChanged {
                log.info("the wall clock was set: working out the deadlines again")
                zoneCheckedAt = .distantPast
            }
            runEngine()
        }
        host.afterRequest = { [unowned self] in
            armDeadline()
            extensions?.supervisor.check()
        }
        // A browser's tabs changed: the focused window may show another website now.
        let tabsChanged = LoopMailbox<Void> { [unowned self] in tracker.recount(.report) }
        host.withService { $0.onBrowserTabsChanged = { tabsChanged.post() } }
        let path = home.socketPath()
        extensions = AgentExtensions(ledger: ledger, host: host, socketPath: path, loop: loop, log: log)
        var rulesProblem = "the rules did not start"
        do {
            rules = try AgentRules.start(in: owner, warningLeads: warningLeads, log: log)
        } catch {
            rulesProblem = "the rules could not start: \(error)"
            log.error("\(rulesProblem); the Screen Time API still runs")
        }
        // Peers are identified (SO_PEERCRED) so an extension the agent started that
        // misbehaves can be told from the person's own programs.
        let requests = AgentRequests(
            host: host, rules: rules,
            reports: AgentReports(
                ledger: ledger, directory: directory, sessionID: sessionID, socketPath: path,
                displayEnvironment: display.environment, log: log),
            pickers: AgentPickers(host: host, displayEnvironment: display.environment, log: log),
            access: LoopBound(AgentAccess(host: host, log: log) { [unowned self] in presenter != nil }),
            labels: LoopBound(
                AgentLabels(connection: display.x11, log: log, language: { ShieldDefaults.language() }) {
                    [unowned self] in presenter != nil
                }),
            covered: LoopBound { [unowned self] in presenter?.covered }, problem: rulesProblem)
        server = try SocketServer(
            path: path, identify: PeerCredentialReader.read, handler: RequestsOnLoop(onLoop: requests))
        log.info("Screen Time API clients connect at \(path)")
        runEngine()
    }

    /// Starts covering shielded applications. Without GTK on this display the agent
    /// still tracks and runs the API, and says plainly that nothing is shielded on screen.
    private func startShields() {
        let stateOwner = LaunchingShieldState(host: host, extensions: extensions)
        do {
            let answers = WebShieldPageAnswers(
                questions: stateOwner, defaults: try ShieldDefaults.load(), language: ShieldDefaults.language(),
                minter: minter, categories: categories
            ) { [log] line in log.info(line) }
            let pages = WebShieldPages(host: host, stateOwner: stateOwner, answers: answers)
            pages.start()
            webShieldPages = pages
        } catch {
            log.error("the browsers' shield pages keep their built-in look: \(error)")
        }
        do {
            let language = SessionLanguage(ShieldDefaults.language())
            let identify = { [unowned self] (facts: WindowFacts) in identity(for: facts) }
            let presenter: any SessionShields
            switch display {
            case .x11(let connection, _):
                presenter = try ShieldPresenter.forSession(
                    displayName: connection.displayName, loop: loop, stateOwner: stateOwner, minter: minter,
                    categories: categories, language: language, identify: identify, log: log)
            case .wayland(let wayland):
                let overlay = try WaylandShieldPresenter.forSession(
                    display: wayland, loop: loop, stateOwner: stateOwner, minter: minter, categories: categories,
                    language: language, identify: identify, log: log)
                overlay.onOverlayChanged = { [unowned self] in tracker.recount(.window) }
                presenter = overlay
            }
            presenter.onSettingsChanged = { [unowned self] shields in hideBlockedFromMenus(shields) }
            presenter.start()
            self.presenter = presenter
            log.info(
                "shields: covering shielded applications on \(display.name) (\(ShieldDefaults.language()))")
        } catch {
            log.error(
                "shields cannot be shown: \(error); usage is still tracked and the API still runs, but nothing "
                    + "is covered on screen"
            )
        }
    }

    /// Blocked applications leave the person's menus while blocked (individual mode:
    /// the applications folder is the person's own).
    private func hideBlockedFromMenus(_ shields: EffectiveShields) {
        guard let menus = BlockedMenuEntries.forUser(environment: ProcessInfo.processInfo.environment, home: home)
        else { return }
        let blocked = BlockedMenuEntries.blockedIDs(in: shields, catalog: identities.resolver.catalog, minter: minter)
        let changes = menus.apply(blocked: blocked, catalog: identities.resolver.catalog)
        for id in changes.hidden { log.info("menus: \(id) hidden while blocked (\(menus.applicationsDirectory.path))") }
        for id in changes.shown { log.info("menus: \(id) shown again") }
        for problem in changes.problems { log.warning("menus: \(problem)") }
    }

    /// Delivers what is due and sleeps until the next deadline: no polling.
    private func runEngine() {
        // A changed /etc/localtime is only seen after a reset: before the engine runs when
        // the clock was set (and at start); otherwise once a minute at most, after what is
        // due now was delivered, which then need not wait for the zone to be read again.
        if zoneCheckedAt == .distantPast { resetTimeZone() }
        host.runDue()
        if Date().timeIntervalSince(zoneCheckedAt) > 60 {
            resetTimeZone()
            host.runDue()  // what the zone, if it changed, makes due
        }
        armDeadline()
        extensions?.supervisor.check()
    }

    private func resetTimeZone() {
        NSTimeZone.resetSystemTimeZone()
        zoneCheckedAt = Date()
    }

    /// The timer is on the wall clock (timerfd): it fires on time after a suspend and
    /// wakes the loop when the clock is set.
    private func armDeadline() {
        deadlineTimer?.arm(at: host.nextDeadline())
    }

    private func stop(reason: String) {
        let now = tracker.now()
        tracker.stop(reason: .agentStopped)
        display.stop()
        deadlineTimer = nil
        server?.close()
        extensions?.supervisor.stopAll()
        do {
            try owner.close(at: now.wall, reason: reason)
        } catch {
            log.error("could not record the end of this run: \(error)")
        }
        log.info("stopped (\(reason)); usage saved")
        loop.quit()
    }
}
