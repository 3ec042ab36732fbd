import CX11
import SessionDisplay

/// Puts a shield window (made elsewhere, known by its X id) over a target window:
/// on the target's desktop, above it, holding the focus. Requests only, no
/// round trips: this runs on the path from the target's activation to the shield
/// holding the focus.
public final class ShieldStacking {
    private let connection: XConnection

    public init(connection: XConnection) {
        self.connection = connection
    }

    /// Puts `shield` on the target's desktop (`_NET_WM_DESKTOP` client message), makes
    /// sure it is above (`_NET_WM_STATE` add `_NET_WM_STATE_ABOVE`, `XRaiseWindow`) and
    /// activates it with `_NET_ACTIVE_WINDOW` source indication 2 (a pager), stamped
    /// `serverTime` (or CurrentTime). Flushes; no round trip.
    ///
    /// `serverTime` should be the stamp of the target's activation (the watcher's
    /// `.activated`): the server ignores a focus change older than the last one.
    /// The request names the target as the requestor's currently active window
    /// (it is the window just activated; window managers ignore the field for
    /// source 2, and reading `_NET_ACTIVE_WINDOW` would cost a round trip).
    public func present(shield: WindowID, over target: ClientWindow, serverTime: ServerTime?) {
        if let desktop = target.desktop {
            connection.requestDesktop(desktop, for: shield)
        }
        connection.requestState(.add, .netWMStateAbove, of: shield)
        XRaiseWindow(connection.display, Window(shield.rawValue))
        connection.requestActivation(of: shield, serverTime: serverTime, currentlyActive: target.id)
        XFlush(connection.display)
    }

    /// Gives the focus back to `window` (`_NET_ACTIVE_WINDOW`, source 2): a shield the
    /// window manager focused on its own, over a window in the background, must not
    /// keep the person from the window they were using.
    public func giveFocusBack(to window: WindowID, serverTime: ServerTime?) {
        connection.requestActivation(of: window, serverTime: serverTime, currentlyActive: nil)
        XFlush(connection.display)
    }

    /// Takes `window` out of the window manager's layers above the normal one
    /// (`_NET_WM_STATE` remove `_NET_WM_STATE_ABOVE`): a covered application put there
    /// would be stacked over its shield.
    public func takeOutOfAboveLayer(_ window: WindowID) {
        connection.requestState(.remove, .netWMStateAbove, of: window)
        XFlush(connection.display)
    }

    /// Moves the shield to the target's desktop only (follows `_NET_WM_DESKTOP` changes).
    public func follow(shield: WindowID, toDesktopOf target: ClientWindow) {
        guard let desktop = target.desktop else { return }
        connection.requestDesktop(desktop, for: shield)
        XFlush(connection.display)
    }
}
