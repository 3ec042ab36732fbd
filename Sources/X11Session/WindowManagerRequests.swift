import CX11
import SessionDisplay

/// Finding the window manager, and the requests this program makes of it (EWMH client messages sent to the
/// root window) and of another client (ICCCM's `WM_PROTOCOLS`, sent to its window): built in
/// one place, their numbers named. None flushes: callers flush once after their requests.
extension XConnection {
    /// The EWMH window manager on this display, if one announces itself: the check window
    /// it names on the root (a window that names itself), and the atoms it lists in
    /// `_NET_SUPPORTED` (nil when it lists none).
    package func windowManager() -> (check: Window, supported: [UInt]?)? {
        ignoringErrors {
            guard let check = propertyWindow(root, .netSupportingWMCheck),
                propertyWindow(check, .netSupportingWMCheck) == check
            else {
                return nil
            }
            return (check, propertyValues(root, .netSupported, maxCount: 1024))
        }
    }

    /// EWMH's source indication 2: a pager or taskbar asks. Window managers obey it without
    /// their focus-stealing prevention, as they do for a click in a taskbar.
    static let pagerSource: CLong = 2

    /// `_NET_WM_STATE`'s actions.
    package enum StateChange: CLong {
        case remove = 0
        case add = 1
    }

    /// `_NET_ACTIVE_WINDOW` for `window`, stamped `serverTime` (nil: CurrentTime), naming
    /// `currentlyActive` as the requestor's active window (nil: none).
    package func requestActivation(of window: WindowID, serverTime: ServerTime?, currentlyActive: WindowID?) {
        sendToWindowManager(
            .netActiveWindow, about: window,
            [
                Self.pagerSource, CLong(serverTime?.rawValue ?? UInt32(CurrentTime)),
                CLong(currentlyActive?.rawValue ?? 0),
            ])
    }

    /// `_NET_WM_STATE`: adds or removes `state` (`_NET_WM_STATE_ABOVE`) on `window`.
    package func requestState(_ change: StateChange, _ state: AtomName, of window: WindowID) {
        sendToWindowManager(.netWMState, about: window, [change.rawValue, CLong(atom(state)), 0, Self.pagerSource])
    }

    /// `_NET_WM_DESKTOP`: moves `window` to `desktop`.
    package func requestDesktop(_ desktop: UInt32, for window: WindowID) {
        sendToWindowManager(.netWMDesktop, about: window, [CLong(desktop), Self.pagerSource])
    }

    /// `_NET_CLOSE_WINDOW`: the window manager asks the client to close `window`, as its
    /// close button does.
    package func requestClose(of window: WindowID) {
        sendToWindowManager(.netCloseWindow, about: window, [CLong(CurrentTime), Self.pagerSource])
    }

    /// ICCCM's `WM_DELETE_WINDOW`, sent to the client itself.
    package func sendDeleteWindow(to window: WindowID) {
        sendClientMessage(
            .wmProtocols, about: window, [CLong(atom(.wmDeleteWindow)), CLong(CurrentTime)],
            to: Window(window.rawValue), mask: .none)
    }

    private func sendToWindowManager(_ type: AtomName, about window: WindowID, _ data: [CLong]) {
        sendClientMessage(type, about: window, data, to: root, mask: [.substructureRedirect, .substructureNotify])
    }

    /// The one sender: a 32-bit client message of `type` about `window`, with up to five
    /// values (the rest 0).
    private func sendClientMessage(
        _ type: AtomName, about window: WindowID, _ data: [CLong], to destination: Window, mask: EventMask
    ) {
        var event = XEvent()
        event.xclient.type = ClientMessage
        event.xclient.window = Window(window.rawValue)
        event.xclient.message_type = atom(type)
        event.xclient.format = 32
        let values = data + Array(repeating: 0, count: max(0, 5 - data.count))
        event.xclient.data.l = (values[0], values[1], values[2], values[3], values[4])
        XSendEvent(display, destination, 0, mask.rawValue, &event)
    }
}
