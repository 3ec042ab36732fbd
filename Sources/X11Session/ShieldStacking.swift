import CX11

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
    public func present(shield: WindowID, over target: ClientWindow, serverTime: UInt32?) {
        let window = Window(shield.rawValue)
        if let desktop = target.desktop {
            sendToRoot(window, "_NET_WM_DESKTOP", [CLong(desktop), 2])
        }
        // 1 = _NET_WM_STATE_ADD; source 2.
        sendToRoot(window, "_NET_WM_STATE", [1, CLong(connection.atom("_NET_WM_STATE_ABOVE")), 0, 2])
        XRaiseWindow(connection.display, window)
        sendToRoot(window, "_NET_ACTIVE_WINDOW", [2, CLong(serverTime ?? UInt32(CurrentTime)), CLong(target.id.rawValue)])
        XFlush(connection.display)
    }

    /// Gives the focus back to `window` (`_NET_ACTIVE_WINDOW`, source 2): a shield the
    /// window manager focused on its own, over a window in the background, must not
    /// keep the person from the window they were using.
    public func giveFocusBack(to window: WindowID, serverTime: UInt32?) {
        sendToRoot(Window(window.rawValue), "_NET_ACTIVE_WINDOW", [2, CLong(serverTime ?? UInt32(CurrentTime)), 0])
        XFlush(connection.display)
    }

    /// Takes `window` out of the window manager's layers above the normal one
    /// (`_NET_WM_STATE` remove `_NET_WM_STATE_ABOVE`): a covered application put there
    /// would be stacked over its shield.
    public func takeOutOfAboveLayer(_ window: WindowID) {
        // 0 = _NET_WM_STATE_REMOVE; source 2.
        sendToRoot(Window(window.rawValue), "_NET_WM_STATE", [0, CLong(connection.atom("_NET_WM_STATE_ABOVE")), 0, 2])
        XFlush(connection.display)
    }

    /// Moves the shield to the target's desktop only (follows `_NET_WM_DESKTOP` changes).
    public func follow(shield: WindowID, toDesktopOf target: ClientWindow) {
        guard let desktop = target.desktop else { return }
        sendToRoot(Window(shield.rawValue), "_NET_WM_DESKTOP", [CLong(desktop), 2])
        XFlush(connection.display)
    }

    private func sendToRoot(_ window: Window, _ type: String, _ data: [CLong]) {
        var event = XEvent()
        event.xclient.type = ClientMessage
        event.xclient.window = window
        event.xclient.message_type = connection.atom(type)
        event.xclient.format = 32
        let values = data + Array(repeating: 0, count: max(0, 5 - data.count))
        event.xclient.data.l = (values[0], values[1], values[2], values[3], values[4])
        XSendEvent(connection.display, connection.root, 0, SubstructureRedirectMask | SubstructureNotifyMask, &event)
    }
}
