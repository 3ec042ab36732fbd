import CX11
import SessionDisplay
import X11Session

/// Asking the window manager (or the server) to move the focus, as a taskbar,
/// Alt+Tab or `xdotool windowactivate` would.
extension XConnection {
    /// Sends the EWMH `_NET_ACTIVE_WINDOW` request (source 2: a pager, which window
    /// managers obey without focus-stealing prevention).
    public func requestActivation(of window: WindowID) {
        requestActivation(of: window, serverTime: nil, currentlyActive: nil)
        flush()
    }

    /// Gives the input focus directly (what matters when no window manager runs).
    public func setInputFocus(to window: WindowID?) {
        ignoringErrors {
            XSetInputFocus(
                display, window.map { Window($0.rawValue) } ?? Window(PointerRoot), Int32(RevertToPointerRoot),
                Time(CurrentTime))
            XSync(display, 0)
        }
    }

    /// `_NET_ACTIVE_WINDOW` as the window manager last set it.
    public func activeWindowProperty() -> WindowID? {
        propertyWindow(root, .netActiveWindow).map { WindowID(UInt($0)) }
    }

    /// Whether the window manager publishes its client list: openbox announces itself
    /// (`_NET_SUPPORTING_WM_CHECK`) before it manages windows, and this comes last.
    public func publishesClientList() -> Bool {
        ignoringErrors { propertyValues(root, .netClientList, maxCount: 1) != nil }
    }

    /// Whether an EWMH window manager announces itself on this display.
    public func hasWindowManager() -> Bool {
        windowManager() != nil
    }
}

/// Records every change of `_NET_ACTIVE_WINDOW` with the server's own timestamp:
/// the ground truth the tests and the benchmark compare the agent against.
public final class ActiveWindowLog {
    public struct Entry: Sendable {
        public var window: WindowID?
        /// Server milliseconds.
        public var serverTime: UInt32
    }

    private let connection: XConnection
    public private(set) var entries: [Entry] = []
    /// The server time of every change, kept or not: the first one after a request
    /// is when the window manager began to act on it.
    public private(set) var changeTimes: [UInt32] = []
    /// The server time of every `_NET_CLIENT_LIST` change: a window managed or gone.
    public private(set) var clientListChangeTimes: [UInt32] = []

    public init(connection: XConnection) {
        self.connection = connection
        connection.selectInput(connection.root, mask: .propertyChange)
        let activeAtom = connection.atom(.netActiveWindow)
        let clientListAtom = connection.atom(.netClientList)
        connection.addEventHandler { [unowned self] event in
            guard sw_event_type(&event) == PropertyNotify, event.xproperty.window == connection.root else { return }
            if event.xproperty.atom == clientListAtom {
                clientListChangeTimes.append(UInt32(truncatingIfNeeded: event.xproperty.time))
            }
            guard event.xproperty.atom == activeAtom else { return }
            changeTimes.append(UInt32(truncatingIfNeeded: event.xproperty.time))
            // Read, then look for a later change queued meanwhile: it owns the value.
            let window = connection.activeWindowProperty()
            guard !connection.isPropertyChangeQueued(connection.root, activeAtom) else { return }
            entries.append(Entry(window: window, serverTime: UInt32(truncatingIfNeeded: event.xproperty.time)))
        }
        connection.flush()
    }

    /// When the window manager mapped each new top-level window: the server time of the
    /// first `WM_STATE` it set on it (ICCCM: the manager sets it as it maps the window),
    /// for windows created after `recordMaps()`.
    public private(set) var mapTimes: [WindowID: UInt32] = [:]

    /// Starts filling `mapTimes`: new top levels are followed from their creation.
    public func recordMaps() {
        connection.selectInput(connection.root, mask: [.propertyChange, .substructureNotify])
        let wmState = connection.atom(.wmState)
        connection.addEventHandler { [unowned self] event in
            switch sw_event_type(&event) {
            case CreateNotify
            where event.xcreatewindow.parent == connection.root && event.xcreatewindow.override_redirect == 0:
                // Ids are reused once their client disconnects: a new window starts afresh.
                mapTimes[WindowID(UInt(event.xcreatewindow.window))] = nil
                connection.selectInput(event.xcreatewindow.window, mask: .propertyChange)
            case PropertyNotify where event.xproperty.atom == wmState && event.xproperty.window != connection.root:
                let window = WindowID(UInt(event.xproperty.window))
                if mapTimes[window] == nil { mapTimes[window] = UInt32(truncatingIfNeeded: event.xproperty.time) }
            default:
                break
            }
        }
        connection.flush()
    }

    /// Reads events already waiting, without a main loop.
    public func poll() { connection.drainEvents() }
}
