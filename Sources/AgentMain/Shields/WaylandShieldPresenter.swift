import Foundation
import GLibRuntime
import GtkBase
@_spi(Screenward) import ManagedSettings
import ManagedSettingsUI
import ScreenwardCore
import SessionDisplay
import ShieldUI
import WaylandSession

/// The shields of a Wayland session. When the focused toplevel is a shielded application's, an
/// overlay (`ShieldOverlay`: the layer shell's overlay layer, or GNOME Shell's extension) covers
/// the output and takes the keyboard, and keeps them until another toplevel takes the focus or
/// a button is pressed; a blocked application's toplevels are closed.
///
/// What Wayland does not tell a client: where another client's windows are, and which process
/// made each one. So a shield covers the whole output, not one window; and an application is
/// known by the focused toplevel's process (sway's IPC), while its other toplevels are known by
/// their app_id. A shielded application shown beside the focused one (tiled) is covered when it
/// takes the focus, not before.
final class WaylandShieldPresenter: SessionShields {
    private let display: any WaylandBackend
    private let loop: MainLoop
    private let stateOwner: any ShieldStateOwner
    private let decider: ShieldDecider
    private let looks: ShieldLooks
    private let identify: (WindowFacts) -> AppIdentity
    private let log: AgentLog
    private var buttons: ShieldButtons!
    private var overlay: (any ShieldOverlay)!
    private var shields: EffectiveShields
    /// The toplevel the overlay covers, what the focus said of it, and why it is shielded.
    private var covering: (observation: FocusObservation, decision: ShieldDecision)?
    /// The focus as last told.
    private var lastFocus: FocusObservation?
    private var news: ShieldStateNews?
    var onSettingsChanged: ((EffectiveShields) -> Void)?
    /// Hears when the overlay came or went: the focus is counted again (time in front of it is
    /// nobody's).
    var onOverlayChanged: () -> Void = {}

    static func forSession(
        display: any WaylandBackend, loop: MainLoop, stateOwner: any ShieldStateOwner, minter: TokenMinter,
        categories: CategoryTable, language: SessionLanguage, identify: @escaping (WindowFacts) -> AppIdentity,
        log: AgentLog
    ) throws -> WaylandShieldPresenter {
        if !(display is GnomeShellDisplay) {
            try GtkToolkit.initialize(waylandDisplay: display.name)
            guard OverlayShieldWindow.isSupported else {
                throw WaylandError.missingProtocol("the layer shell (zwlr_layer_shell_v1)", compositor: display.name)
            }
        }
        return WaylandShieldPresenter(
            display: display, loop: loop, stateOwner: stateOwner,
            decider: ShieldDecider(minter: minter, categories: categories, language: language),
            looks: ShieldLooks(
                defaults: try ShieldDefaults.load(), language: language, stateOwner: stateOwner, loop: loop, log: log),
            identify: identify, log: log)
    }

    private init(
        display: any WaylandBackend, loop: MainLoop, stateOwner: any ShieldStateOwner, decider: ShieldDecider,
        looks: ShieldLooks, identify: @escaping (WindowFacts) -> AppIdentity, log: AgentLog
    ) {
        self.display = display
        self.loop = loop
        self.stateOwner = stateOwner
        self.decider = decider
        self.looks = looks
        self.identify = identify
        self.log = log
        shields = stateOwner.effectiveShields
        buttons = ShieldButtons(stateOwner: stateOwner, looks: looks, loop: loop, log: log) {
            [unowned self] response, decision in
            if response == .close { close(decision) }
        }
        let pressed = { [unowned self] (action: ShieldAction) in
            guard let covering else { return }
            buttons.pressed(action, on: covering.decision)
        }
        if let shell = display as? GnomeShellDisplay {
            overlay = ShellShieldCover(shell: shell, onAction: pressed)
        } else {
            overlay = OverlayShieldWindow(onAction: pressed)
        }
        overlay.onShown = { [unowned self] in
            log.debug("shield: drawn over \(covering?.observation.window.map { "\($0)" } ?? "-")")
        }
    }

    func start() {
        looks.onNewLook = { [unowned self] application, look in
            if let covering, covering.decision.application == application, overlay.shield != look {
                overlay.redraw(look)
            }
        }
        news = ShieldStateNews(
            from: stateOwner, answers: { [unowned self] answers in buttons.received(answers) },
            changed: { [unowned self] in settingsChanged() },
            attached: { [unowned self] owners in
                if let covering, owners.contains(covering.decision.owner) { looks.ask(covering.decision) }
            })
        onSettingsChanged?(shields)
        if let lastFocus { decide(lastFocus) }
    }

    func isShielded(_ identity: AppIdentity) -> Bool {
        decider.decide(identity, in: shields) != nil || !decider.blockingStores(of: identity, in: shields).isEmpty
    }

    func holdsFocus(_ observation: FocusObservation) -> Bool { overlay?.isVisible ?? false }

    func focusChanged(_ observation: FocusObservation) {
        lastFocus = observation
        decide(observation)
    }

    func identitiesChanged() {
        if let lastFocus { decide(lastFocus) }
    }

    func languageChanged() {
        if let lastFocus { decide(lastFocus) }
        if let covering { overlay.redraw(looks.look(for: covering.decision)) }
    }

    var covered: [CoveredWindow] {
        guard let covering, let facts = covering.observation.facts else { return [] }
        let identity = covering.decision.identity
        return [
            CoveredWindow(
                window: "\(covering.observation.window.map { "\($0)" } ?? "-")", shieldWindow: "overlay",
                application: identity.publicID, name: identity.displayName, owner: covering.decision.owner,
                store: covering.decision.store, frame: overlay.frame,
                visible: overlay.isVisible, pid: facts.pid)
        ]
    }

    // MARK: Deciding

    private func settingsChanged() {
        shields = stateOwner.effectiveShields
        if let lastFocus { decide(lastFocus) }
        onSettingsChanged?(shields)
    }

    /// What the focus means for the overlay: shown over a shielded app's toplevel; kept while
    /// no toplevel has the focus (the overlay took the keyboard, so the compositor activates
    /// none); taken down when an unshielded one has it.
    private func decide(_ focus: FocusObservation) {
        // While the overlay has the keyboard a wlroots compositor activates no toplevel, and KWin
        // activates the overlay itself (a window of this process): the one it covers is still
        // the one to decide (the settings may have changed).
        let overlayHasIt = focus.window == nil || focus.facts?.pid == getpid()
        let observation = overlayHasIt ? covering?.observation ?? focus : focus
        guard let window = observation.window, let facts = observation.facts else { return uncover() }
        let identity = identify(facts)
        let blockers = decider.blockingStores(of: identity, in: shields)
        if !blockers.isEmpty {
            let stores = blockers.map(\.description).joined(separator: ", ")
            log.info("shield: \(identity.publicID) is blocked (\(stores)): \(window) is closed")
            uncover()
            let asked = display.closeToplevels { $0.windowID == window.rawValue }
            if asked.isEmpty, let pid = facts.pid { end(pid, of: identity) }
            return
        }
        guard let decision = decider.decide(identity, in: shields) else { return uncover() }
        let same = covering?.decision == decision && covering?.observation.window == window
        covering = (observation, decision)
        let look = looks.look(for: decision)
        if !same || !overlay.isVisible {
            log.info("shield: covering \(window) of \(identity.publicID) (\(decision.owner)/\(decision.store))")
            overlay.show(look)
            looks.ask(decision)
            stateOwner.publishCoveredWindows(covered)
            onOverlayChanged()
        } else if overlay.shield != look {
            overlay.redraw(look)
        }
    }

    private func uncover() {
        guard let covering else { return }
        self.covering = nil
        log.info(
            "shield: uncovered \(covering.observation.window.map { "\($0)" } ?? "-") of "
                + covering.decision.identity.publicID)
        overlay.hide()
        stateOwner.publishCoveredWindows([])
        onOverlayChanged()
    }

    /// Closes the shielded app: each of its toplevels is asked to close (the compositor sends
    /// the close its own button would), and a process that keeps one open two seconds later is
    /// ended; where the compositor cannot be asked (KWin), the process is ended at once. Its
    /// other toplevels are known by their app_id, the focused one by its process.
    private func close(_ decision: ShieldDecision) {
        let pid = covering?.observation.facts?.pid
        let asked = display.closeToplevels { identify($0).key == decision.identity.key }
        uncover()
        for window in asked { log.info("shield: closing \(window) of \(decision.identity.publicID)") }
        guard let pid, pid != getpid() else { return }
        guard !asked.isEmpty else { return end(pid, of: decision.identity) }
        loop.schedule(after: .seconds(2)) { [weak self] in
            guard let self, asked.contains(where: display.isOpen) else { return }
            log.warning("shield: \(decision.identity.publicID) kept its windows open")
            end(pid, of: decision.identity)
        }
    }

    /// Ends a shielded app's process: the state owner does where it holds the process (a
    /// managed child's), else this agent (the person's own).
    private func end(_ pid: Int32, of identity: AppIdentity) {
        if stateOwner.closeHeldProcess(pid) { return }
        log.info("shield: ending \(identity.publicID) (pid \(pid))")
        kill(pid, SIGTERM)
    }
}
