import ScreenwardBasics

/// The display a session agent runs on, seen from the agent: the one seam between what the agent
/// decides and the display server. In come the focused toplevel, with the facts that identify its
/// process, and the evidence that someone is in front of it; shields and closes go out through the
/// agent's shield presenter for the same display. X11 is the reference backend; the owner, the
/// rules and the API never learn which one runs.
///
/// A backend runs on the agent's main loop: it is made with the loop, and calls back on it.
public protocol DisplayBackend: AnyObject {
    /// The display's name, for the log and `screenward status`: `:5`, `wayland-1`.
    var name: String { get }
    /// How the focus is followed, in a few words for the log ("EWMH window manager").
    var focusSource: String { get }
    /// The clocks, on which the display server's events are placed.
    var timeSource: any TimeSource { get }
    /// What this display cannot tell, each a line for the log ("a playing video counts only
    /// while input comes: …"); empty when it tells everything.
    var limitations: [String] { get }
    /// Receives a line per decision, for `--verbose` diagnosis.
    var trace: ((String) -> Void)? { get set }

    /// Starts following the display: `focus` hears the focus at once, then every change;
    /// `presence` hears each piece of evidence that someone is there or is not (input, input
    /// idle for the threshold the backend was made with, motion in the focused window, the
    /// screen blanked).
    func start(focus: @escaping (FocusObservation) -> Void, presence: @escaping (Presence.Evidence) -> Void)

    /// `handler` runs once when the display server closes the connection (the session ended),
    /// from inside the backend: the process ends right after.
    func onConnectionLost(_ handler: @escaping () -> Void)
}
