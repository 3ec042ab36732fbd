import Foundation
import GLibRuntime
import GtkBase
@_spi(Screenward) import ManagedSettings
import ManagedSettingsUI
import ScreenwardCore
import SessionDisplay
import ShieldCoverage
import ShieldUI
import Synchronization
import X11Session

/// Covers every window of every shielded application with a shield, keeps it over
/// its window, and carries out what the shield's buttons decide.
///
/// It runs on the agent's loop with an X connection of its own (event masks are
/// per client: the focus tracker's must not clobber the watcher's). Everything
/// here reacts to events: a window mapped, moved or activated, the settings
/// changed, an extension answered.
final class ShieldPresenter {
    /// One covered window and its shield.
    private final class Cover {
        var target: ClientWindow
        var decision: ShieldDecision
        var surface: ShieldWindow
        /// When its shield was last shown: the window manager takes a moment to map it.
        var shownAt = ContinuousClock.now

        init(target: ClientWindow, decision: ShieldDecision, surface: ShieldWindow) {
            self.target = target
            self.decision = decision
            self.surface = surface
        }

        var shieldID: WindowID { WindowID(surface.windowID) }
    }

    private let loop: MainLoop
    private let watcher: ClientWindowWatcher
    private let stacking: ShieldStacking
    private let closer: WindowCloser
    /// Covered windows get no input, even before their shield takes the focus back.
    private let hold: InputHold
    private let blocked: BlockedWindows
    private let stateOwner: any ShieldStateOwner
    private let decider: ShieldDecider
    private let looks: ShieldLooks
    private let identify: (WindowFacts) -> AppIdentity
    private let log: AgentLog
    private let ownPID = ProcessInfo.processInfo.processIdentifier

    private var shields: EffectiveShields
    private var covers: [WindowID: Cover] = [:]
    /// A realized, unmapped shield, so that covering a new window costs a map.
    private var spare: ShieldWindow?
    private var shieldIDs: Set<WindowID> = []
    /// Covered windows taken from their shields, kept unmapped while their application is
    /// shielded (the watcher keeps them so), with that application.
    private var taken: [WindowID: AppIdentity] = [:]
    private var closing: Set<WindowID> = []
    /// Shields shown over the active window that the window manager does not manage yet.
    private var awaitingFocus: Set<WindowID> = []
    /// Shields shown over a window in the background: a window manager that focuses them
    /// anyway is undone once.
    private var handback = FocusHandback()
    /// Whether the shields shown are still what they were made to be.
    private var shieldAudit = ShieldAudit()
    private var grabChecks = KeyboardGrabChecks<WindowID>()
    private var grabTimer: MainLoop.Registration?
    /// What the shields' buttons do.
    private var buttons: ShieldButtons!
    /// The server time of the last activation, for the shield's own activation request.
    private var lastActivationTime: ServerTime?
    /// What the state owner tells, from whichever thread it is on (a socket's, in child mode).
    private var news: ShieldStateNews?

    /// A presenter for the session on `displayName`, as both agents make it: GTK
    /// initialised there, an X connection of its own, the shield texts in the session's
    /// language. Not started yet.
    static func forSession(
        displayName: String, loop: MainLoop, stateOwner: any ShieldStateOwner, minter: TokenMinter,
        categories: CategoryTable, language: SessionLanguage,
        identify: @escaping (WindowFacts) -> AppIdentity, log: AgentLog
    ) throws -> ShieldPresenter {
        try GtkToolkit.initialize(displayName: displayName)
        let connection = try XConnection(displayName: displayName)
        let defaults = try ShieldDefaults.load()
        return ShieldPresenter(
            connection: connection, loop: loop, stateOwner: stateOwner,
            decider: ShieldDecider(minter: minter, categories: categories, language: language), defaults: defaults,
            language: language,
            identify: identify, log: log)
    }

    init(
        connection: XConnection, loop: MainLoop, stateOwner: any ShieldStateOwner, decider: ShieldDecider,
        defaults: ShieldDefaults, language: SessionLanguage,
        identify: @escaping (WindowFacts) -> AppIdentity, log: AgentLog
    ) {
        self.loop = loop
        self.stateOwner = stateOwner
        self.decider = decider
        self.identify = identify
        self.log = log
        watcher = ClientWindowWatcher(connection: connection, loop: loop)
        stacking = ShieldStacking(connection: connection)
        closer = WindowCloser(connection: connection, loop: loop)
        hold = InputHold(connection: connection)
        blocked = BlockedWindows(hold: hold, closer: closer, log: log)
        looks = ShieldLooks(defaults: defaults, language: language, stateOwner: stateOwner, loop: loop, log: log)
        shields = stateOwner.effectiveShields
        buttons = ShieldButtons(stateOwner: stateOwner, looks: looks, loop: loop, log: log) {
            [unowned self] response, decision in
            guard response == .close else { return }
            for cover in covers.values where cover.decision.application == decision.application {
                close(cover.target.id, pid: cover.target.pid, of: decision)
            }
        }
    }

    /// Hears the effective settings at the start and after every change (the agent
    /// hides blocked applications from menus with it).
    var onSettingsChanged: ((EffectiveShields) -> Void)?

    /// Whether an application is shielded or blocked now (a managed session's agent holds
    /// its processes wherever they draw).
    func isShielded(_ identity: AppIdentity) -> Bool {
        decider.decide(identity, in: shields) != nil || !decider.blockingStores(of: identity, in: shields).isEmpty
    }

    /// Whether `window` is one of the agent's shields (its focus is nobody's usage).
    func isShield(_ window: WindowID) -> Bool { shieldIDs.contains(window) }

    func start() {
        looks.onNewLook = { [unowned self] application, look in
            for cover in covers.values where cover.decision.application == application && cover.surface.shield != look {
                cover.surface.redraw(look)
            }
        }
        news = ShieldStateNews(
            from: stateOwner, answers: { [unowned self] answers in buttons.received(answers) },
            changed: { [unowned self] in settingsChanged() },
            attached: { [unowned self] owners in dataSourcesAttached(owners) })
        // A key caught on a covered window: the window manager has just given it the
        // focus, and its shield takes it back (the key itself went nowhere).
        hold.onInputCaught = { [unowned self] id in
            if let cover = covers[id], cover.surface.isVisible { focus(cover) }
        }
        watcher.onWindowManagerGone = { [unowned self] in
            log.warning(
                "shield: the window manager is gone; windows are followed without it, and hidden shields unmapped")
            spare?.stopStandingBy()
            for cover in covers.values { cover.surface.stopStandingBy() }
            onWindowManagerGone?()
        }
        // Made before the watcher starts (the first shields are quick), as if a window
        // manager runs; told otherwise at once if none does.
        spare = makeSurface(standingBy: true)
        watcher.start { [unowned self] event in handle(event) }
        if !watcher.usesWindowManager { spare?.stopStandingBy() }
        // Windows covered now are held again; any other an agent killed earlier left
        // without input gets it back.
        for window in hold.releaseLeftovers(among: Array(watcher.windows.keys)) {
            log.info("shield: gave \(window) back the input a previous run held")
        }
        publish()
        onSettingsChanged?(shields)
    }

    // MARK: The shields' picture

    private var auditTimer: MainLoop.Registration?

    /// An audit `ShieldAudit.interval` from now, unless one is already due: the server told
    /// something that could change the picture.
    private func auditSoon() {
        guard auditTimer == nil, !covers.isEmpty else { return }
        auditTimer = loop.schedule(after: ShieldAudit.interval) { [weak self] in self?.audit() }
    }

    /// Looks at every shield shown (`ShieldAudit`) and replaces those found wrong twice.
    private func audit() {
        auditTimer = nil
        let shown = covers.values.filter { $0.surface.isVisible && $0.target.isViewable }.map {
            ShieldAudit.Shown(
                target: $0.target.id, targetFrame: $0.target.frame, shield: $0.shieldID, shownAt: $0.shownAt)
        }
        let positions = shown.isEmpty ? [:] : watcher.stackingPositions()
        let now = ContinuousClock.now
        let replacements = shieldAudit.check(
            shown,
            seen: { [watcher] shield in
                watcher.windows[shield].map { ShieldAudit.Seen(isViewable: $0.isViewable, frame: $0.frame) }
            }, positions: positions, now: now)
        for replacement in replacements {
            guard let cover = covers[replacement.target] else { continue }
            // Put in a lower layer, or the app in a higher one: the app comes down to the
            // normal layer, and a fresh shield goes over it in the one above.
            if replacement.problem == .underItsWindow { stacking.takeOutOfAboveLayer(cover.target.id) }
            replaceShield(of: cover, because: "\(replacement.problem)")
        }
        if shieldAudit.needsAnotherLook(shown, now: now) { auditSoon() }
    }

    private func replaceShield(of cover: Cover, because problem: String) {
        log.warning(
            "shield: the shield over \(cover.target.id) of \(cover.decision.identity.publicID) was \(problem): "
                + "it is replaced"
        )
        let old = cover.surface
        shieldAudit.forget(cover.shieldID)
        shieldIDs.remove(cover.shieldID)
        awaitingFocus.remove(cover.shieldID)
        cover.surface = spare ?? makeSurface()
        spare = nil
        old.destroy()
        show(cover)
        publish()
        onShieldReplaced?(cover.decision.identity.publicID, problem)
    }

    /// Hears that the session's window manager went away (the managed agent tells the daemon).
    var onWindowManagerGone: (() -> Void)?

    /// Hears of each shield replaced (the managed agent tells the daemon, which records it).
    var onShieldReplaced: ((_ application: String, _ problem: String) -> Void)?

    // MARK: Window events

    private func handle(_ event: ClientWindowEvent) {
        log.debug("shield: window event \(event)")
        // Whatever happened, the shields' picture may have changed with it.
        defer { auditSoon() }
        switch event {
        case .added(let window):
            // A new window may reuse the id of one being closed (ids are reused once
            // their client disconnects): it is not being closed.
            closing.remove(window.id)
            update(window)
        case .changed(let window):
            update(window)
        case .removed(let id):
            // A covered window that is gone from the window manager's list but not destroyed
            // was taken from its shield (withdrawn, to be put into another window, where no
            // shield follows): it stays unmapped while its application is shielded.
            if let cover = covers[id], watcher.keepUnmapped(id) {
                log.warning(
                    "shield: \(id) of \(cover.decision.identity.publicID) was taken from its shield: kept unmapped")
                taken[id] = cover.decision.identity
            }
            uncover(id)
            blocked.removed(id)
            closing.remove(id)
        case .activated(let id, let serverTime):
            lastActivationTime = serverTime
            if let id, let previous = handback.activated(id, at: .now), watcher.windows[previous] != nil {
                log.debug("shield: \(id) took the focus from \(previous) on its own; giving it back")
                stacking.giveFocusBack(to: previous, serverTime: serverTime)
                return
            }
            guard let id, let cover = covers[id], cover.surface.isVisible else { return }
            // Alt+Tab, a taskbar click, `xdotool windowactivate`: the shield takes it back.
            focus(cover)
        case .unmanagedMapped(let id, let facts, let pid):
            closeUncoverable(id, facts: facts, pid: pid)
        case .keyboardGrab(let id, let held):
            keyboardGrab(onShield: id, held: held)
        case .restacked:
            break
        }
    }

    private func update(_ window: ClientWindow) {
        guard !shieldIDs.contains(window.id) else {
            // The window manager manages a shield only a moment after it is shown; an
            // activation asked for before then is lost, so it is asked for again now.
            if window.isViewable, awaitingFocus.remove(window.id) != nil,
                let cover = covers.values.first(where: { $0.shieldID == window.id })
            {
                focus(cover)
            }
            return
        }
        let identity = identify(window.facts)
        let blockers = decider.blockingStores(of: identity, in: shields)
        let current: WindowCoverage<ShieldDecision>.Current =
            if blocked.isClosing(window.id) {
                .closing
            } else if let cover = covers[window.id] {
                .covered(before: cover.target, decision: cover.decision, shieldVisible: cover.surface.isVisible)
            } else {
                .uncovered
            }
        let verdict = WindowCoverage.verdict(
            for: window, blocked: !blockers.isEmpty, decision: decider.decide(identity, in: shields),
            current: current, windowIsActive: watcher.activeWindow == window.id)
        switch verdict {
        case .block:
            uncover(window.id)
            blocked.block(window, of: identity, by: blockers)
        case .leave: break
        case .uncover: uncover(window.id)
        case .cover(let decision): cover(window, decision)
        case .follow(let steps, let decision):
            guard let cover = covers[window.id] else { return }
            cover.target = window
            follow(cover, steps, decision)
            publish()
        }
    }

    private func follow(_ cover: Cover, _ steps: [ShieldFollowing.Step], _ decision: ShieldDecision) {
        for step in steps {
            switch step {
            case .redraw:
                cover.decision = decision
                cover.surface.redraw(looks.look(for: decision))
                looks.ask(decision)
            case .hide: cover.surface.hide()
            case .show: show(cover)
            case .cover(let frame): cover.surface.cover(frame)
            case .followDesktop: stacking.follow(shield: cover.shieldID, toDesktopOf: cover.target)
            case .focus: focus(cover)
            }
        }
    }

    private func cover(_ window: ClientWindow, _ decision: ShieldDecision) {
        let surface = spare ?? makeSurface()
        spare = nil
        let cover = Cover(target: window, decision: decision, surface: surface)
        covers[window.id] = cover
        log.info("shield: covering \(window.id) of \(decision.identity.publicID) (\(decision.owner)/\(decision.store))")
        do {
            try hold.hold(window.id)
        } catch {
            log.warning(
                "shield: the input of \(window.id) of \(decision.identity.publicID) cannot be held (\(error)); "
                    + "it cannot be covered reliably, so it is closed"
            )
            close(window.id, pid: window.pid, of: decision)
        }
        if window.isViewable { show(cover) }
        takeDownUnmanagedWindowsSoon()
        looks.ask(decision)
        publish()
        // The next window to cover gets a ready shield, made once this one is up and
        // focused (making one takes the loop for a few milliseconds).
        loop.schedule(after: .milliseconds(300)) { [weak self] in
            guard let self, spare == nil else { return }
            spare = makeSurface()
        }
    }

    private func show(_ cover: Cover) {
        let started = ContinuousClock.now
        cover.shownAt = started
        cover.surface.onShown = { [log, target = cover.target.id] in log.debug("shield: drawn over \(target)") }
        shieldAudit.shown(cover.shieldID)
        auditSoon()
        cover.surface.show(looks.look(for: cover.decision), covering: cover.target.frame) {
            stacking.follow(shield: cover.shieldID, toDesktopOf: cover.target)
            // The covered window keeps no input: the shield takes the focus if it had it.
            if let active = watcher.activeWindow, active != cover.target.id {
                handback.shownInBackground(cover.shieldID, whileActive: active, at: .now)
            } else {
                focus(cover)
            }
        }
        log.debug("shield: shown over \(cover.target.id) in \(ContinuousClock.now - started)")
    }

    /// Raises the shield over its window and gives it the focus. A shield the window
    /// manager does not manage yet (just shown) gets it again once managed: an
    /// activation asked for before then is lost.
    private func focus(_ cover: Cover) {
        // Wanted now: not a focus to give back.
        handback.wanted(cover.shieldID)
        stacking.present(shield: cover.shieldID, over: cover.target, serverTime: lastActivationTime)
        if watcher.windows[cover.shieldID]?.isViewable != true { awaitingFocus.insert(cover.shieldID) }
    }

    /// A keyboard grab seen on a shield (`KeyboardGrabChecks` says when it closes the app).
    private func keyboardGrab(onShield shield: WindowID, held: Bool) {
        guard let cover = covers.values.first(where: { $0.shieldID == shield }) else { return }
        grabChecks.grab(over: cover.target.id, held: held, at: .now)
        scheduleGrabCheck()
    }

    private func scheduleGrabCheck() {
        grabTimer?.cancel()
        grabTimer = nil
        guard let deadline = grabChecks.deadline else { return }
        grabTimer = loop.schedule(after: max(.zero, deadline - .now)) { [weak self] in self?.checkGrabs() }
    }

    private func checkGrabs() {
        grabTimer = nil
        let due = grabChecks.due(
            at: .now, shielded: { [covers] in covers[$0]?.surface.isVisible == true }, holdIsOwnGrab: hold.holdsKeyboard
        )
        for target in due {
            guard let cover = covers[target] else { continue }
            log.warning(
                "shield: the keyboard stays grabbed while \(cover.decision.identity.publicID) is shielded; it "
                    + "cannot be covered reliably, so it is closed"
            )
            close(cover.target.id, pid: cover.target.pid, of: cover.decision)
        }
        scheduleGrabCheck()
    }

    private func uncover(_ id: WindowID) {
        guard let cover = covers.removeValue(forKey: id) else { return }
        log.info("shield: uncovered \(id) of \(cover.decision.identity.publicID)")
        cover.surface.hide()
        hold.release(id)
        shieldAudit.forget(cover.shieldID)
        awaitingFocus.remove(cover.shieldID)
        grabChecks.forget(id)
        if spare == nil {
            spare = cover.surface
        } else {
            shieldIDs.remove(cover.shieldID)
            cover.surface.destroy()
        }
        publish()
    }

    /// The override-redirect windows a shielded app had open when it became so (a menu, a
    /// popup) cannot be covered. Where its processes are held (child mode) they are unmapped:
    /// it cannot map them again. Elsewhere the app is closed, as when it maps one.
    private var unmanagedScan: MainLoop.Registration?

    /// Once, a moment after the shields that changed are up (the scan asks the server about
    /// every top level: not on the way to a shield).
    private func takeDownUnmanagedWindowsSoon() {
        guard unmanagedScan == nil else { return }
        unmanagedScan = loop.schedule(after: .milliseconds(50)) { [weak self] in
            self?.unmanagedScan = nil
            self?.takeDownUnmanagedWindows()
        }
    }

    private func takeDownUnmanagedWindows() {
        let coveredProcesses = Set(covers.values.compactMap(\.target.pid))
        for unmanaged in watcher.unmanagedWindows() where unmanaged.pid != ownPID && !closing.contains(unmanaged.id) {
            let shielded =
                unmanaged.pid.map(coveredProcesses.contains) == true
                || unmanaged.facts.map { isShielded(identify($0)) } == true
            guard shielded else { continue }
            guard stateOwner.holdsCoveredProcesses else {
                closeUncoverable(unmanaged.id, facts: unmanaged.facts, pid: unmanaged.pid)
                continue
            }
            log.warning(
                "shield: a shielded app has a window that bypasses the window manager (\(unmanaged.id)) open; it "
                    + "is unmapped"
            )
            watcher.unmap(unmanaged.id)
        }
    }

    /// A window the shield cannot cover reliably (override-redirect: menus, popups,
    /// games that bypass the window manager) belongs to a shielded application:
    /// the application is closed instead.
    private func closeUncoverable(_ id: WindowID, facts: WindowFacts?, pid: Int32?) {
        guard pid != ownPID else { return }
        let covered = covers.values.first { cover in pid != nil && cover.target.pid == pid }
        let decision = covered?.decision ?? facts.flatMap { decider.decide(identify($0), in: shields) }
        guard let decision, !closing.contains(id) else { return }
        // A browser covered while it is checked runs on (its extension must load): its window
        // is unmapped, not the browser closed.
        if decision.owner == NotInstalledPrograms.owner, decision.store == UnsupportedBrowsers.checkingStore {
            log.info("shield: \(decision.identity.publicID), being checked, mapped \(id) over its shield: unmapped")
            watcher.unmap(id)
            return
        }
        log.warning(
            "shield: \(decision.identity.publicID) mapped a window that bypasses the window manager (\(id)); it "
                + "cannot be covered, so the application is closed"
        )
        close(id, pid: pid, of: decision)
    }

    // MARK: Settings

    /// What windows are changed (a managed session's agent learned their processes anew):
    /// each is decided again.
    func identitiesChanged() {
        for window in watcher.windows.values { update(window) }
        if !covers.isEmpty { takeDownUnmanagedWindowsSoon() }
    }

    /// The session speaks another language now: each window is decided again (a category's
    /// name is in the decision) and each shield says its texts in the new language.
    func languageChanged() {
        for window in watcher.windows.values { update(window) }
        for cover in covers.values {
            let look = looks.look(for: cover.decision)
            if cover.surface.shield != look { cover.surface.redraw(look) }
        }
    }

    private func settingsChanged() {
        shields = stateOwner.effectiveShields
        for window in watcher.windows.values { update(window) }
        for id in covers.keys where watcher.windows[id] == nil { uncover(id) }
        let kept = Set(watcher.keptUnmappedWindows)
        for (id, identity) in taken where !kept.contains(id) || !isShielded(identity) {
            taken[id] = nil
            watcher.letGo(id)
        }
        takeDownUnmanagedWindowsSoon()
        onSettingsChanged?(shields)
    }

    /// A data source that starts after its app's shields went up restyles them.
    private func dataSourcesAttached(_ owners: Set<String>) {
        var asked: Set<ApplicationToken> = []
        for cover in covers.values
        where owners.contains(cover.decision.owner) && asked.insert(cover.decision.application).inserted {
            looks.ask(cover.decision)
        }
    }

    // MARK: Buttons

    /// A new shield window; standing by (mapped minimized) needs a window manager to minimize it.
    private func makeSurface(standingBy: Bool? = nil) -> ShieldWindow {
        var created: ShieldWindow?
        let surface = ShieldWindow(standingBy: standingBy ?? watcher.usesWindowManager) { [unowned self] action in
            guard let created, let cover = covers.values.first(where: { $0.surface === created }) else { return }
            buttons.pressed(action, on: cover.decision)
        }
        created = surface
        shieldIDs.insert(WindowID(surface.windowID))
        return surface
    }

    private func close(_ window: WindowID, pid: Int32?, of decision: ShieldDecision) {
        if let pid, pid != ownPID, stateOwner.closeHeldProcess(pid) {
            log.info("shield: asked the state owner to end \(decision.identity.publicID) (pid \(pid)), which it holds")
            return
        }
        guard closing.insert(window).inserted else { return }
        closer.close(window, pid: pid) { [log] step in
            log.info("shield: closing \(window) of \(decision.identity.publicID): \(step.rawValue)")
        } done: { [weak self, log] outcome in
            switch outcome {
            case .closed(let step):
                log.info("shield: closed \(window) of \(decision.identity.publicID) (\(step.rawValue))")
            case .failed(let reason):
                log.warning("shield: could not close \(window) of \(decision.identity.publicID): \(reason)")
            }
            self?.closing.remove(window)
        }
    }

    // MARK: State for `screenward shields`

    /// Hears the processes of the covered windows before the state owner does (a managed
    /// session's agent keeps holding one whose window was taken away while still shielded).
    var onCoversChanged: ((Set<Int32>) -> Void)?

    private var lastPublished: [CoveredWindow]?

    /// The windows covered now, in the order of their ids (`screenward shields`).
    var covered: [CoveredWindow] { lastPublished ?? [] }

    /// Tells what is covered, when that changed (windows are decided again whenever the
    /// child's processes come and go).
    private func publish() {
        let covered = covers.values.map { cover in
            CoveredWindow(
                window: "\(cover.target.id)", shieldWindow: "\(cover.shieldID)",
                application: cover.decision.identity.publicID,
                name: cover.decision.identity.displayName, owner: cover.decision.owner, store: cover.decision.store,
                frame: cover.target.frame, visible: cover.surface.isVisible, pid: cover.target.pid)
        }.sorted { $0.window < $1.window }
        guard covered != lastPublished else { return }
        lastPublished = covered
        onCoversChanged?(Set(covers.values.compactMap(\.target.pid)).subtracting([ownPID]))
        stateOwner.publishCoveredWindows(covered)
    }
}
