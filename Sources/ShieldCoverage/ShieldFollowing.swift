import ScreenwardCore
import X11Session

/// How a shield follows the window it covers when that window changes: what the presenter
/// does to the shield, worked out from the window before and after, whether the shield is
/// on screen, and whether the window has the focus. A policy as a value: no window is
/// touched here.
public enum ShieldFollowing {
    /// One thing to do to the shield.
    public enum Step: Sendable, Equatable {
        /// The stores changed which decision covers the window: its look is drawn anew.
        case redraw
        /// The window went away from the screen (unmapped, minimized, on a desktop not shown).
        case hide
        /// The window came back: the shield is shown over it (and takes the focus if the
        /// window had it).
        case show
        /// The window moved or was resized: the shield covers its new frame.
        case cover(ScreenRect)
        /// The window went to another desktop (or to all): the shield goes with it.
        case followDesktop
        /// The window became fullscreen, or stopped being so, while focused: the shield is
        /// raised over it again (a fullscreen window is in a layer of its own).
        case focus
    }

    /// The steps, in order, for `window` as it is now, covered until now as `before` under
    /// `decision` (`decisionNow` is what covers it now: a `ShieldDecision`).
    public static func steps<Decision: Equatable>(
        before: ClientWindow, now window: ClientWindow, decision: Decision, decisionNow: Decision,
        shieldVisible: Bool, windowIsActive: Bool
    ) -> [Step] {
        var steps: [Step] = decision == decisionNow ? [] : [.redraw]
        if !window.isViewable {
            if shieldVisible { steps.append(.hide) }
        } else if !shieldVisible {
            steps.append(.show)
        } else {
            if before.frame != window.frame { steps.append(.cover(window.frame)) }
            if before.desktop != window.desktop { steps.append(.followDesktop) }
            if before.isFullscreen != window.isFullscreen, windowIsActive { steps.append(.focus) }
        }
        return steps
    }
}
