@_spi(Screenward) import DeviceActivity
@_spi(Screenward) import FamilyControls
import Foundation
import GLibRuntime
import GtkBase
@_spi(Screenward) import ManagedSettings
@_spi(Screenward) import ScreenwardCore
import ScreenwardIPC
import SessionDisplay
import ShieldUI
import WaylandSession
import X11Session

/// The agent of a managed user's session, started by the system daemon as the agents'
/// system user (never as the child): it tracks the focus and covers shielded windows as
/// in individual mode, but owns no state. Its usage goes to the daemon as reports, its
/// shields come from the daemon, and it says it is alive once a second. It exits when
/// the daemon's connection or the display's ends; the daemon starts another. On Wayland it
/// follows the compositor the daemon found and vetted, and checks that it is that process.
final class ManagedAgent {
    private let log: AgentLog
    private let session: String
    private let link: DaemonLink
    private let attachment: AgentAttachment
    private let display: AgentDisplay
    private let loop = MainLoop()
    private let identities: Identities
    private let catalog: ApplicationCatalog
    /// The system's shared data folders, whose desktop entries name applications.
    private let dataDirectories: String
    /// Clients asked about since the daemon last told the programs, and when.
    private var asked: [Int32: ContinuousClock.Instant] = [:]
    /// How long a client's windows wait for the daemon's word before their claim is taken
    /// (a process not the child's is never in its table).
    private static let patience: Duration = .milliseconds(500)
    private var programsChanged: LoopMailbox<Void>?
    private let minter: TokenMinter
    private let categories: CategoryTable
    /// The focus, idle time, logind and the accountant, whose usage goes to the daemon.
    private let tracker: SessionTracker
    private var accountant: UsageAccountant { tracker.accountant }
    private var lastFocus: FocusObservation? { tracker.lastFocus }
    private var aliveTimer: MainLoop.Registration?
    private var wasPresent: Bool?
    private var presenter: (any SessionShields)?
    private var shieldState: DaemonShieldState?
    private var dialogs: [UInt64: GuardianDialog] = [:]
    private var elsewhere = ShieldedElsewhere()
    private var elsewhereTimer: MainLoop.Registration?
    private var dialogEvents: LoopMailbox<DialogEvent>?
    private var labels: AgentLabels?
    private var labelsAsked: LoopMailbox<LabelShow>?
    private var languageChanged: LoopMailbox<Void>?
    /// The child's browsers' tabs, as the daemon passes them on (nil: websites are not told
    /// apart here, for want of the Public Suffix List).
    private var browserTabs: BrowserTabs?
    private var browsersChanged: LoopMailbox<Void>?
    /// Browsers the extension does not report for, shielded as not supported.
    private var unsupportedBrowsers = UnsupportedBrowsers()
    private var unsupportedWake: MainLoop.Registration?

    private enum DialogEvent: Sendable {
        case show(GuardianAsk)
        case close(UInt64)
        case verdict(UInt64, GuardianVerdict)
    }

    /// `compositorPID`: on Wayland, the compositor the daemon found for the session.
    init(
        session: String, daemonSocket: String, dataDirectories: String, display choice: AgentDisplay.Choice,
        compositorPID: Int32?, log: AgentLog
    ) throws {
        GtkToolkit.disableGLUnlessChosen()
        // Shields draw themselves; the guardian's dialog loads the desktop's theme when shown.
        GtkToolkit.deferDesktopTheme()
        self.log = log
        self.session = session
        link = DaemonLink(path: daemonSocket)
        attachment = try link.attach(session: session)
        let idleThreshold = Duration.milliseconds(Int64(attachment.idleThresholdSeconds * 1000))
        display = try AgentDisplay.open(choice, loop: loop, idleThreshold: idleThreshold, compositor: compositorPID)
        if case .wayland(let backend) = display {
            try Self.check(backend, isTheCompositor: compositorPID)
        }
        // Only the system's applications (the daemon names their folders): the child's own
        // folders could rename anything.
        let (catalog, problems) = ApplicationCatalog.loadFromEnvironment(["XDG_DATA_DIRS": dataDirectories])
        for problem in problems.prefix(20) { log.warning("desktop entry skipped: \(problem)") }
        self.catalog = catalog
        self.dataDirectories = dataDirectories
        // The child's processes as the daemon reads them: the agent's user may not.
        identities = Identities(resolver: AppResolver(catalog: catalog, processes: link.programs))
        minter = TokenMinter(secret: DeviceSecret(bytes: attachment.deviceSecret))
        categories = try DataDirectory.categoryTable()
        let link = link
        tracker = SessionTracker(
            display: display.backend, loop: loop,
            sink: AgentReportSink { report in link.post(AgentLinkMethods.usage, report) }, minter: minter,
            idleThreshold: .milliseconds(Int64(attachment.idleThresholdSeconds * 1000)), lockSource: .idleOnly, log: log
        )
        do {
            browserTabs = BrowserTabs(addresses: WebAddresses(suffixes: try PublicSuffixList.load()))
        } catch {
            log.warning("websites are not counted: \(error)")
        }
    }

    func run() throws {
        let ended = LoopMailbox<Void> { [self] in
            log.info("the daemon closed the connection: stopping")
            loop.quit()
        }
        link.onEnd { ended.post() }
        display.backend.onConnectionLost { [self] in
            // On X11 called from inside Xlib, and the process exits right after; on Wayland
            // the loop ends. The daemon closes the open interval when this process's
            // connection drops.
            log.info("the display \(display.name) closed the connection")
            loop.quit()
        }
        display.attach(to: loop)
        loop.onSignal(SIGTERM) { [self] in stop(reason: "SIGTERM") }
        loop.onSignal(SIGINT) { [self] in stop(reason: "SIGINT") }
        startShields()
        listenForGuardianAsks()
        listenForPickers()
        listenForReports()
        listenForLabels()
        listenForPrograms()
        listenForBrowsers()
        tracker.counted = { [unowned self] observation in counted(observation) }
        tracker.changed = { [unowned self] in stateChanged() }
        tracker.start(
            logindMissing: { [log, session] error in
                log.info("no logind for session \(session): suspend is not detected (\(error))")
            },
            afterFocus: { [unowned self] observation in
                presenter?.focusChanged(observation)
                checkBrowsers()
            })
        aliveTimer = loop.schedule(after: AgentLinkMethods.aliveInterval) { [self] in sayAlive() }
        link.post(AgentLinkMethods.alive, Empty())
        log.info(
            "tracking \(display.name) for \(attachment.user) (session \(session)), "
                + "from \(display.backend.focusSource), reporting to \(link.path)")
        loop.run()
        display.stop()
        link.close()
    }

    private func startShields() {
        do {
            let state = DaemonShieldState(link: link)
            let presenter = try makeShields(state: state)
            self.presenter = presenter
            presenter.start()
            // The session's tray told the daemon its language: the shields speak it from now on.
            let spoken = LoopMailbox<Void> { [unowned self, presenter] in
                log.info("the session speaks \(link.language.spoken.current): the shields too")
                presenter.languageChanged()
            }
            languageChanged = spoken
            link.language.onChange { spoken.post() }
            shieldState = state
            elsewhereTimer = loop.schedule(after: ShieldedElsewhere.interval) { [weak self] in
                self?.holdShieldedElsewhereNow()
            }
        } catch {
            // Without shields the session is not enforced: say so and stop, so that the
            // daemon counts a failure (and locks the session if it keeps failing).
            log.error("shields cannot be shown: \(error)")
            loop.quit()
        }
    }

    /// The display's shields: on X11 one over each window of a shielded app, whose tampering
    /// the daemon hears of; on Wayland an overlay while one has the focus.
    private func makeShields(state: DaemonShieldState) throws -> any SessionShields {
        let identify = { [unowned self] (facts: WindowFacts) in identity(for: facts) }
        switch display {
        case .x11(let connection, _):
            let presenter = try ShieldPresenter.forSession(
                displayName: connection.displayName, loop: loop, stateOwner: state, minter: minter,
                categories: categories, language: link.language.spoken, identify: identify, log: log)
            let link = link
            presenter.onShieldReplaced = { application, problem in
                link.post(
                    AgentLinkMethods.shieldTampered, AgentShieldTampered(application: application, problem: problem))
            }
            presenter.onWindowManagerGone = { link.post(AgentLinkMethods.windowManagerGone, Empty()) }
            presenter.onCoversChanged = { [unowned self] processes in
                elsewhere.covered(processes)
                holdShieldedElsewhere()
            }
            return presenter
        case .wayland(let backend):
            let overlay = try WaylandShieldPresenter.forSession(
                display: backend, loop: loop, stateOwner: state, minter: minter, categories: categories,
                language: link.language.spoken, identify: identify, log: log)
            overlay.onOverlayChanged = { [unowned self] in tracker.recount(.window) }
            return overlay
        }
    }

    /// A managed session's Wayland display must be the compositor the daemon vetted, and name
    /// each window's process: an app_id is the app's own choice.
    private static func check(_ backend: any WaylandBackend, isTheCompositor expected: Int32?) throws {
        guard let wlroots = backend as? WaylandDisplay else {
            throw ManagedDisplayError("\(backend.name) is not a compositor a managed session is served on yet (sway)")
        }
        // The connection itself refused a listener other than `expected` (`WaylandConnection`).
        guard expected != nil else { throw ManagedDisplayError("no compositor was named for \(backend.name)") }
        guard wlroots.namesProcesses else {
            let why = wlroots.limitations.joined(separator: "; ")
            throw ManagedDisplayError("\(backend.name) names no window's process: \(why)")
        }
    }

    // MARK: Shielded wherever it draws

    /// The processes of shielded apps that draw on no window of this display are held too
    /// (by the daemon): on a nested display server, or a window taken away from its shield.
    private func holdShieldedElsewhere() {
        guard let presenter else { return }
        let held = elsewhere.held(
            programs: link.programs.all,
            isShielded: { [catalog] program in
                ProgramNarrowing.identity(of: program, catalog: catalog).map(presenter.isShielded) ?? false
            },
            // A Wayland compositor names no client to another: every shielded app's processes
            // are held there, its windows too (its overlay covers only the focused one).
            displayClients: { [display] in display.x11?.clientProcessIDs() ?? [] })
        guard let held else { return }
        let listed = held.isEmpty ? "none" : held.map(String.init).joined(separator: " ")
        log.info("processes of shielded apps with no window here, held: \(listed)")
        link.post(AgentLinkMethods.heldElsewhere, held)
    }

    private func holdShieldedElsewhereNow() {
        holdShieldedElsewhere()
        elsewhereTimer = loop.schedule(after: ShieldedElsewhere.interval) { [weak self] in
            self?.holdShieldedElsewhereNow()
        }
    }

    // MARK: A guardian's approval

    /// The daemon's asks arrive on the link's queue and hop onto the loop, where GTK runs.
    private func listenForGuardianAsks() {
        let events = LoopMailbox<DialogEvent> { [unowned self] events in
            for event in events { handle(event) }
        }
        dialogEvents = events
        link.dialogs.answer { push in
            switch push {
            case .show(let ask): events.post(.show(ask))
            case .close(let id): events.post(.close(id))
            }
        }
    }

    private func handle(_ event: DialogEvent) {
        switch event {
        case .show(let ask):
            log.debug("the daemon asks for a guardian (ask \(ask.id))")
            guard presenter != nil, dialogs[ask.id] == nil else { return }
            log.info("a guardian is asked: \(ask.question)")
            dialogs[ask.id] = GuardianDialog(
                question: ask.question(in: .forLanguage(link.language.spoken.current)), guardians: ask.guardians,
                texts: .forLanguage(link.language.spoken.current),
                onAnswer: { [unowned self] guardian, code in
                    send(GuardianAnswer(ask: ask.id, guardian: guardian, code: code))
                },
                onCancel: { [unowned self] in
                    dialogs[ask.id] = nil
                    send(.cancelled(ask.id))
                },
                onVoid: { [unowned self] loss in
                    dialogs[ask.id] = nil
                    log.warning("the guardian's dialog lost the keyboard (\(loss)): it is void")
                    send(.voided(ask.id, because: loss.phrase))
                })
        case .close(let id):
            dialogs.removeValue(forKey: id)?.close()
        case .verdict(let id, let verdict):
            switch verdict {
            case .tryAgain(let message, let notBefore): dialogs[id]?.showProblem(message, notBefore: notBefore)
            case .approved, .cancelled, .closed: dialogs.removeValue(forKey: id)?.close()
            }
        }
    }

    /// The answer goes to the daemon off the loop (it may be slow to answer, and the
    /// loop draws the shields).
    private func send(_ answer: GuardianAnswer) {
        let link = link
        let events = dialogEvents
        Thread.detachNewThread {
            let texts = Translations.forLanguage(link.language.spoken.current)
            let verdict =
                (try? link.answer(answer))
                ?? .tryAgain(
                    message: texts("The daemon did not answer; try again.", context: "guardianDialog.verdict"),
                    notBefore: nil)
            events?.post(.verdict(answer.ask, verdict))
        }
    }

    // MARK: An app's activity picker

    /// The daemon asks for an app's activity picker: shown here, as the agents' user (the
    /// child can neither trace it nor read what it prints), and waited for on a thread of its
    /// own; the ids chosen go back to the daemon, which answers the app with its tokens.
    private func listenForPickers() {
        let (link, log, display, dataDirectories) = (link, log, display.x11?.displayName, dataDirectories)
        let displayEnvironment = self.display.environment
        link.pickers.answer { show in
            Thread.detachNewThread {
                var environment = Self.windowEnvironment(
                    display: displayEnvironment, language: link.language.spoken.current)
                environment["XDG_DATA_DIRS"] = dataDirectories
                let closed: PickerClosed
                do {
                    let run = PickerRun(
                        program: try PickerProgram.locate(), ticked: show.ticked, headerText: show.headerText,
                        footerText: show.footerText, seen: show.seen, display: display, environment: environment)
                    log.info("an app's activity picker is shown")
                    closed = PickerClosed(id: show.id, chosen: try run.run())
                } catch {
                    log.warning("an app's activity picker failed: \(error)")
                    closed = PickerClosed(id: show.id, failure: "\(error)")
                }
                link.post(AgentLinkMethods.pickerClosed, closed)
            }
        }
    }

    /// The environment of a window the agent shows for an app (its picker, its report): this
    /// agent's, on the session's display, in the session's language (as the guardian's dialog).
    private static func windowEnvironment(display: [String: String], language: String) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment.merging(display) { $1 }
        if language != Translations.language(fromEnvironment: environment) {
            environment["LANG"] = "\(language).UTF-8"
        }
        return environment
    }

    // MARK: An app's label

    /// The daemon asks for an app's label: drawn here, as the agents' user, on the loop (GTK),
    /// inside the window the X server says the app's process made.
    private func listenForLabels() {
        let link = link
        labels = AgentLabels(
            connection: display.x11, log: log, language: { link.language.spoken.current },
            canDraw: { [unowned self] in presenter != nil })
        let asked = LoopMailbox<LabelShow> { [unowned self] shows in
            for show in shows {
                var shown = LabelShown(id: show.id)
                do {
                    try labels?.show(
                        show.contents, style: show.style, inWindow: show.window, of: show.pid, app: show.app)
                } catch let error as ServiceError {
                    shown.failure = error.message
                } catch {
                    shown.failure = "\(error)"
                }
                link.post(AgentLinkMethods.labelShown, shown)
            }
        }
        labelsAsked = asked
        link.labels.answer { show in asked.post(show) }
    }

    // MARK: An app's report

    /// The daemon asks for an app's report: its window is shown here, as the agents' user, and
    /// asks the daemon for the drawing with the ticket, which only this user's processes hold.
    private func listenForReports() {
        let (link, log, display) = (link, log, display.environment)
        link.reports.answer { show in
            Thread.detachNewThread {
                var environment = Self.windowEnvironment(display: display, language: link.language.spoken.current)
                environment["SCREENWARD_DAEMON_SOCKET"] = link.path
                environment["SCREENWARD_REPORT_TICKET"] = show.ticket
                var closed = ReportClosed(id: show.id)
                if let program = DeviceActivityReport.rendererPath() {
                    log.info("\(show.app)'s report is shown")
                    do {
                        try ReportWindowRun(
                            program: program, app: show.app, presentation: show.presentation, environment: environment
                        ).run()
                    } catch {
                        log.warning("\(show.app)'s report window: \(error)")
                        closed.failure = "\(error)"
                    }
                } else {
                    closed.failure = "Screenward's report window (screenward-report) is not installed beside the agent"
                }
                link.post(AgentLinkMethods.reportClosed, closed)
            }
        }
    }

    /// The display answered (a round trip), so the agent is not stuck: tell the daemon.
    private func sayAlive() {
        display.sync()
        link.post(AgentLinkMethods.alive, Empty())
        aliveTimer = loop.schedule(after: AgentLinkMethods.aliveInterval) { [self] in sayAlive() }
    }

    /// What the window claims, narrowed to what its process is (`ProgramNarrowing`). A
    /// client the daemon has not told of yet is asked about; its windows are identified
    /// again when the answer comes (within milliseconds).
    private func identity(for facts: WindowFacts) -> AppIdentity {
        let claimed = identities.identity(for: facts)
        guard let pid = facts.pid, pid != getpid() else { return claimed }
        guard let program = link.programs.facts(pid: pid) else {
            if asked[pid] == nil {
                asked[pid] = .now
                link.post(AgentLinkMethods.clients, [pid])
                // Not the child's (never in the table): its claim stands once patience ends.
                loop.schedule(after: Self.patience) { [weak self] in self?.programsChanged?.post() }
            }
            return claimed
        }
        if let browser = unsupportedBrowsers.unsupported[pid] ?? unsupportedBrowsers.checking[pid] {
            return UnsupportedBrowsers.identity(of: browser, executable: program.executable)
        }
        return ProgramNarrowing.identity(claimed: claimed, program: program, catalog: catalog)
    }

    /// The focused window's application for the count: none while its client waits for the
    /// daemon's word (its first milliseconds are not counted rather than counted as what it
    /// claims), none for a shield.
    private func countedIdentity(of observation: FocusObservation) -> AppIdentity? {
        guard observation.window != nil, !(presenter?.holdsFocus(observation) ?? false), !observation.isTheAgentsOwn,
            let facts = observation.facts
        else { return nil }
        let app = identity(for: facts)
        if let pid = facts.pid, link.programs.facts(pid: pid) == nil, let since = asked[pid],
            ContinuousClock.now - since < Self.patience
        {
            return nil
        }
        return app
    }

    /// What counts for the focused window: its application, and the website it shows (from
    /// its browser's latest report); nothing in front of a browser's shield page.
    private func counted(_ observation: FocusObservation) -> (app: AppIdentity?, site: Website?) {
        guard let app = countedIdentity(of: observation), let facts = observation.facts else { return (nil, nil) }
        return browserTabs?.counted(app, windowPID: facts.pid, title: facts.title) ?? (app, nil)
    }

    // MARK: Browsers the extension does not report for

    /// Child mode fails closed for a browser Screenward cannot see into (`UnsupportedBrowsers`):
    /// told what has the focus and which browsers report, it says what to shield, lift and record.
    private func checkBrowsers() {
        let before = (unsupportedBrowsers.unsupported, unsupportedBrowsers.checking)
        unsupportedBrowsers.forgetEnded { FileManager.default.fileExists(atPath: "/proc/\($0)") }
        var focused: (pid: Int32, browser: AppIdentity, started: ContinuousClock.Instant?)?
        if let observation = lastFocus, observation.window != nil, !(presenter?.holdsFocus(observation) ?? false),
            let facts = observation.facts,
            let pid = facts.pid, let program = link.programs.facts(pid: pid),
            unsupportedBrowsers.unsupported[pid] == nil
        {
            let app = identity(for: facts)
            if UnsupportedBrowsers.isBrowser(app, executable: program.executable) {
                let canRunTheExtension = BrowserInstallation.browserExecutables.contains(program.executable)
                focused = (pid, app, canRunTheExtension ? Self.started(pid) : nil)
            }
        }
        let now = ContinuousClock.now
        for action in unsupportedBrowsers.observe(
            // A report of no windows (a host registering, its extension's shields not yet
            // applied) names no window of the process.
            focused: focused, reported: Set(link.browsers.current.filter { !$0.windows.isEmpty }.map(\.browserPID)),
            now: now)
        {
            switch action {
            case .wake(let at):
                unsupportedWake?.cancel()
                unsupportedWake = loop.schedule(after: max(at - now, .milliseconds(1))) { [weak self] in
                    self?.checkBrowsers()
                }
            case .shield(let pid, let browser):
                log.info(
                    "\(browser.displayName) (pid \(pid)) had the focus with no report of Screenward's extension: "
                        + "shielded as not supported"
                )
            case .lift(let pid):
                log.info("the browser of pid \(pid) reports now: no longer shielded")
            case .record(let pid, let browser):
                let executable = link.programs.facts(pid: pid)?.executable ?? "?"
                link.post(
                    AgentLinkMethods.unsupportedBrowser,
                    AgentUnsupportedBrowser(pid: pid, browser: browser.displayName, executable: executable))
            }
        }
        guard unsupportedBrowsers.unsupported != before.0 || unsupportedBrowsers.checking != before.1 else { return }
        // A browser being checked is covered by a store of its own, whose shields hold nothing.
        let stores = [
            (UnsupportedBrowsers.store, unsupportedBrowsers.unsupported),
            (UnsupportedBrowsers.checkingStore, unsupportedBrowsers.checking),
        ].compactMap { name, browsers -> StoreSettings? in
            let tokens = browsers.compactMap { pid, browser in
                link.programs.facts(pid: pid).map {
                    minter.applicationToken(for: UnsupportedBrowsers.identity(of: browser, executable: $0.executable))
                }
            }
            guard !tokens.isEmpty else { return nil }
            return StoreSettings(
                owner: NotInstalledPrograms.owner, name: name, shield: ShieldSettings(applications: Set(tokens)))
        }
        shieldState?.setLocalStores(stores)
        presenter?.identitiesChanged()
    }

    /// When process `pid` started, on the monotonic clock (now, when /proc does not say).
    private static func started(_ pid: Int32) -> ContinuousClock.Instant {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.range(of: ")", options: .backwards),
            let uptime = try? String(contentsOfFile: "/proc/uptime", encoding: .utf8),
            let up = Double(uptime.split(separator: " ").first ?? "")
        else { return .now }
        // Field 22 (starttime, in clock ticks since boot); the fields after the name start at 3.
        let fields = stat[close.upperBound...].split(separator: " ")
        guard fields.count > 19, let ticks = Double(fields[19]) else { return .now }
        let age = max(0, up - ticks / Double(sysconf(Int32(_SC_CLK_TCK))))
        return .now - .milliseconds(Int64(age * 1000))
    }

    /// The daemon told of the browsers' tabs anew: the focused window's website may be another.
    private func listenForBrowsers() {
        let changed = LoopMailbox<Void> { [unowned self] in
            browserTabs?.replace(with: link.browsers.current)
            checkBrowsers()
            tracker.recount(.report)
        }
        browsersChanged = changed
        link.browsers.onChange { changed.post() }
    }

    /// The daemon told the child's programs anew: every window is identified again.
    private func listenForPrograms() {
        let changed = LoopMailbox<Void> { [unowned self] in
            identities.reload(identities.resolver)
            // A client the daemon does not answer for is not the child's: not asked again
            // for a minute.
            asked = asked.filter { ContinuousClock.now - $0.value < .seconds(60) }
            presenter?.identitiesChanged()
            checkBrowsers()
            tracker.recount(.window)
        }
        programsChanged = changed
        link.programs.onChange { changed.post() }
    }

    /// Tells the daemon when the child comes and goes (interval callbacks wait meanwhile).
    private func stateChanged() {
        let present = tracker.isPresent
        if present != wasPresent {
            wasPresent = present
            link.post(AgentLinkMethods.presence, AgentPresence(present: present))
        }
    }

    private func stop(reason: String) {
        tracker.stop(reason: .agentStopped)
        log.info("stopped (\(reason))")
        loop.quit()
    }
}

extension GuardianDialog.KeyboardLoss {
    /// For the guardians' record.
    var phrase: Phrase {
        switch self {
        // swift-format-ignore
        case .heldByAnother:
            Phrase("another program held the keyboard, so the code could not be typed safely", context: "event")
        case .taken: Phrase("another program took the keyboard from it while it was open", context: "event")
        }
    }
}

/// Why a managed session's display cannot be served.
struct ManagedDisplayError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
