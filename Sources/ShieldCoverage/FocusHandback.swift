import SessionDisplay
import X11Session

/// A shield shown over a window in the background must not take the focus from the window
/// the person is using. A window manager that focuses a new window anyway (openbox does,
/// restoring a minimized window) is undone once: the first activation of that shield within
/// `patience` gives the focus back to the window that had it.
///
/// A policy as a value: told when shields are shown and windows activated, it says where the
/// focus goes back to.
public struct FocusHandback {
    /// How long after a shield was shown in the background its activation is undone.
    public static let patience: Duration = .seconds(1)

    private var backgroundShields: [WindowID: (active: WindowID, until: ContinuousClock.Instant)] = [:]

    public init() {}

    /// `shield` was shown while `active` had the focus (not its own window).
    public mutating func shownInBackground(
        _ shield: WindowID, whileActive active: WindowID, at now: ContinuousClock.Instant
    ) {
        backgroundShields[shield] = (active, now + Self.patience)
    }

    /// The shield is to have the focus now (its window was activated, or it was shown over
    /// the active window): nothing to give back.
    public mutating func wanted(_ shield: WindowID) {
        backgroundShields[shield] = nil
    }

    /// `window` was activated: the window to give the focus back to, once, when it is a shield
    /// shown in the background that the window manager focused on its own.
    public mutating func activated(_ window: WindowID, at now: ContinuousClock.Instant) -> WindowID? {
        backgroundShields = backgroundShields.filter { $0.value.until > now }
        return backgroundShields.removeValue(forKey: window)?.active
    }
}
