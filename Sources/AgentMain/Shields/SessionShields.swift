import ScreenwardCore
import SessionDisplay

/// The shields of one session, as the agents see them whichever display runs them: the X11
/// presenter (a shield over each window of a shielded app) or a Wayland one.
protocol SessionShields: AnyObject {
    /// Hears the effective settings at the start and after every change.
    var onSettingsChanged: ((EffectiveShields) -> Void)? { get set }
    /// What is covered now (`screenward shields`).
    var covered: [CoveredWindow] { get }
    /// Whether an application is shielded or blocked now.
    func isShielded(_ identity: AppIdentity) -> Bool
    /// Whether the focus observed is on a shield, in front of which time is nobody's usage.
    func holdsFocus(_ observation: FocusObservation) -> Bool
    /// Tells the shields of each focus change, after it was counted.
    func focusChanged(_ observation: FocusObservation)
    func start()
    /// The apps' identities were learned anew: each window is decided again.
    func identitiesChanged()
    /// The session speaks another language now.
    func languageChanged()
}

extension ShieldPresenter: SessionShields {
    func holdsFocus(_ observation: FocusObservation) -> Bool {
        observation.window.map(isShield) ?? false
    }

    /// The X11 presenter follows the X server's own events.
    func focusChanged(_ observation: FocusObservation) {}
}
