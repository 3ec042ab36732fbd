import CX11
import GLibRuntime
import ScreenwardCore
import SessionDisplay

/// A managed application window: who it belongs to and where it is drawn.
public struct ClientWindow: Hashable, Sendable {
    public var id: WindowID
    /// Identity properties (WM_CLASS etc.); a dialog reports its WM_TRANSIENT_FOR owner's.
    public var facts: WindowFacts
    /// X-Resource client pid, else `_NET_WM_PID` (see `processID(of:)`).
    public var pid: Int32?
    /// Where the window is drawn, decorations included: the client's root geometry grown by _NET_FRAME_EXTENTS.
    public var frame: ScreenRect
    /// _NET_WM_DESKTOP: nil when unknown, 0xFFFFFFFF for all desktops.
    public var desktop: UInt32?
    /// Mapped and not minimized (_NET_WM_STATE_HIDDEN or WM_STATE Iconic means not viewable).
    /// Window managers that unmap what is on a desktop not shown (openbox: unmapped and
    /// Iconic) make a window on another desktop not viewable; `desktop` tells where it is.
    public var isViewable: Bool
    /// _NET_WM_STATE_FULLSCREEN.
    public var isFullscreen: Bool

    public init(
        id: WindowID, facts: WindowFacts, pid: Int32?, frame: ScreenRect, desktop: UInt32?, isViewable: Bool,
        isFullscreen: Bool
    ) {
        self.id = id
        self.facts = facts
        self.pid = pid
        self.frame = frame
        self.desktop = desktop
        self.isViewable = isViewable
        self.isFullscreen = isFullscreen
    }

    /// `desktop` for a window shown on every desktop.
    public static let allDesktops: UInt32 = 0xFFFF_FFFF
}

public enum ClientWindowEvent: Sendable {
    /// A new managed client (in _NET_CLIENT_LIST), or each existing one at start.
    case added(ClientWindow)
    /// Moved, resized, desktop/state/identity changed, mapped/unmapped (only when the value changed).
    case changed(ClientWindow)
    /// Left _NET_CLIENT_LIST or destroyed.
    case removed(WindowID)
    /// _NET_ACTIVE_WINDOW changed (nil: none), with the PropertyNotify's server time
    /// (at start: the server time when the watcher read it).
    case activated(WindowID?, serverTime: ServerTime)
    /// An override-redirect top-level mapped (menus, popups, "unshieldable" windows);
    /// the window manager's own (frames, its menus) are left out.
    case unmanagedMapped(WindowID, facts: WindowFacts?, pid: Int32?)
    /// Another client took (`held`) or gave back the keyboard with an active grab while
    /// this client window had the focus (FocusOut NotifyGrab or FocusIn NotifyWhileGrabbed;
    /// FocusIn NotifyUngrab). Window managers grab for a moment during Alt+Tab.
    case keyboardGrab(WindowID, held: Bool)
    /// A top-level window was moved, resized or restacked (a ConfigureNotify on the root):
    /// which window is over which may have changed.
    case restacked
}

/// Follows every managed application window from X events alone (no polling):
/// where it is drawn, on which desktop, whether it is viewable or fullscreen, what
/// it is; the active window; and override-redirect windows as they map.
///
/// Give it a connection of its own: X event masks are per client and per window,
/// and other watchers (the focus tracker) reset the masks they select. The watcher
/// carries its connection's events on `loop` itself (`start` attaches, `stop` detaches).
///
/// Without an EWMH window manager the mapped InputOutput children of the root
/// (not override-redirect) count as clients, and no activation is reported.
public final class ClientWindowWatcher {
    private let connection: XConnection
    private let loop: MainLoop
    private var handler: (ClientWindowEvent) -> Void = { _ in }
    private var registration: MainLoop.Registration?
    private var eventHandlerID: Int?

    /// What a client window is made of; `client` is derived from it.
    private struct Tracked {
        var client: ClientWindow
        /// The root's child holding the client (the window manager's frame; the client itself without one).
        var topLevel: Window
        var mapped: Bool
        var hidden: Bool
        var iconic: Bool
        /// Root position and size of the client itself.
        var geometry: ScreenRect
        /// _NET_FRAME_EXTENTS: left, right, top, bottom.
        var extents: (left: Int, right: Int, top: Int, bottom: Int)

        mutating func recompute() {
            client.frame = ScreenRect(
                x: geometry.x - extents.left, y: geometry.y - extents.top,
                width: geometry.width + extents.left + extents.right,
                height: geometry.height + extents.top + extents.bottom)
            client.isViewable = mapped && !hidden && !iconic
        }
    }

    private var tracked: [Window: Tracked] = [:]
    /// Windows kept unmapped wherever they are (`keepUnmapped`), and whether this watcher
    /// unmapped them (then they are mapped again when let go).
    private var keptUnmapped: [Window: Bool] = [:]
    private var active: Window?
    public private(set) var usesWindowManager = false
    /// The window manager's own X client (resource base and mask), to leave its
    /// override-redirect frames and menus out of `.unmanagedMapped`.
    private var windowManagerClient: (base: UInt, mask: UInt)?
    /// The window manager's check window: its destruction says the window manager is gone
    /// (killed, crashed), which no root property says.
    private var windowManagerCheck: Window?

    private static let clientMask: EventMask = [.structureNotify, .propertyChange, .focusChange]
    private static let identityProperties: [AtomName] = [
        .wmClass, .gtkApplicationID, .kdeNetWMDesktopFile, .netWMName, .wmName, .wmTransientFor,
        .netWMPID,
    ]
    private var identityAtoms: Set<Atom> = []
    private var atoms = (
        clientList: Atom(0), activeWindow: Atom(0), frameExtents: Atom(0), desktop: Atom(0), state: Atom(0),
        wmState: Atom(0), hidden: Atom(0), fullscreen: Atom(0), supportingCheck: Atom(0), supported: Atom(0)
    )

    public init(connection: XConnection, loop: MainLoop) {
        self.connection = connection
        self.loop = loop
    }

    public var windows: [WindowID: ClientWindow] {
        Dictionary(uniqueKeysWithValues: tracked.map { (WindowID(UInt($0.key)), $0.value.client) })
    }

    public var activeWindow: WindowID? { active.map { WindowID(UInt($0)) } }

    /// Starts watching: `handler` gets `.added` for each current client and
    /// `.activated` for the current active window at once, then every change.
    public func start(_ handler: @escaping (ClientWindowEvent) -> Void) {
        guard registration == nil else { return }
        self.handler = handler
        identityAtoms = Set(Self.identityProperties.map { connection.atom($0) })
        atoms = (
            connection.atom(.netClientList), connection.atom(.netActiveWindow),
            connection.atom(.netFrameExtents), connection.atom(.netWMDesktop), connection.atom(.netWMState),
            connection.atom(.wmState), connection.atom(.netWMStateHidden),
            connection.atom(.netWMStateFullscreen), connection.atom(.netSupportingWMCheck),
            connection.atom(.netSupported)
        )
        eventHandlerID = connection.addEventHandler { [unowned self] event in self.handle(&event) }
        registration = loop.attach(connection)
        // Select before reading, so no change falls between the read and the events.
        connection.selectInput(connection.root, mask: [.propertyChange, .substructureNotify])
        detectWindowManager()
        // The active window first: the windows found next are judged knowing it (a shield
        // shown at start takes the focus only from the window it covers, not from the
        // window the person is using).
        let time = connection.serverTimeNow() ?? 0
        active = usesWindowManager ? connection.propertyWindow(connection.root, .netActiveWindow) : nil
        syncClients()
        handler(.activated(activeWindow, serverTime: time))
    }

    /// Stops: no more events; the loop registration and every selection are removed.
    public func stop() {
        guard let registration else { return }
        registration.cancel()
        self.registration = nil
        if let id = eventHandlerID { connection.removeEventHandler(id) }
        eventHandlerID = nil
        connection.ignoringErrors {
            connection.selectInput(connection.root, mask: .none)
            for window in tracked.keys { connection.selectInput(window, mask: .none) }
            connection.sync()
        }
        tracked = [:]
        active = nil
        handler = { _ in }
    }

    deinit { stop() }

    // MARK: Window manager and client list

    private func detectWindowManager() {
        var found = false
        var check: Window?
        if let manager = connection.windowManager(), let supported = manager.supported {
            found = supported.contains(UInt(atoms.clientList))
            check = manager.check
        }
        usesWindowManager = found
        windowManagerCheck = found ? check : nil
        if let check = windowManagerCheck {
            connection.ignoringErrors { connection.selectInput(check, mask: .structureNotify) }
        }
        windowManagerClient = check.flatMap { connection.resourceClient(of: $0) }
    }

    /// The window manager went away: its clients, put back on the root by the server, are
    /// followed as the mapped top levels until another one starts (its root properties stay
    /// behind, naming a check window that no longer exists).
    private func windowManagerGone() {
        detectWindowManager()
        guard !usesWindowManager else { return }
        active = nil
        syncClients()
        onWindowManagerGone?()
    }

    /// Hears that the window manager went away (after the clients are followed without it).
    public var onWindowManagerGone: (() -> Void)?

    /// Brings the tracked set in line with the window manager's client list (or,
    /// without one, the mapped top levels): `.added` and `.removed` for the difference.
    private func syncClients() {
        let current: [Window]
        if usesWindowManager {
            current = (connection.propertyValues(connection.root, .netClientList, maxCount: 8192) ?? []).map {
                Window($0)
            }
            .filter { $0 != 0 }
        } else {
            current = connection.topLevelWindows().filter { connection.isPlainMappedTopLevel($0) }
        }
        let currentSet = Set(current)
        for window in tracked.keys where !currentSet.contains(window) {
            remove(window)
        }
        for window in current where tracked[window] == nil {
            add(window)
        }
    }

    private func add(_ window: Window) {
        guard tracked[window] == nil, window != connection.timeProbeWindow, let state = read(window) else { return }
        tracked[window] = state
        handler(.added(state.client))
    }

    private func remove(_ window: Window) {
        guard tracked.removeValue(forKey: window) != nil else { return }
        // The window may be gone: the error, if any, is ignored by serial.
        connection.selectInput(window, mask: .none)
        connection.flush()
        if active == window, !usesWindowManager { active = nil }
        handler(.removed(WindowID(UInt(window))))
    }

    // MARK: Reading a window

    /// Selects the events of `window` and reads all of it; nil if it is gone.
    private func read(_ window: Window) -> Tracked? {
        let (attributes, errors) = connection.withErrorWatch {
            connection.selectInput(window, mask: Self.clientMask)
            return connection.attributes(of: window)
        }
        guard let attributes, !errors.contains(where: { $0.concerns(window) }) else {
            return nil
        }
        guard let facts = connection.readFacts(of: window) else { return nil }
        let (fresh, readErrors) = connection.withErrorWatch {
            let pid = facts.windowID == UInt(window) ? facts.pid : connection.processID(of: window)
            let topLevel = connection.topLevelAncestor(of: window) ?? window
            let geometry = connection.rootGeometry(of: window) ?? ScreenRect(x: 0, y: 0, width: 0, height: 0)
            let state = readState(window)
            return Tracked(
                client: ClientWindow(
                    id: WindowID(UInt(window)), facts: facts, pid: pid, frame: geometry, desktop: readDesktop(window),
                    isViewable: false, isFullscreen: state.fullscreen),
                topLevel: topLevel, mapped: attributes.mapped, hidden: state.hidden, iconic: readIconic(window),
                geometry: geometry, extents: readExtents(window))
        }
        guard !readErrors.contains(where: { $0.concerns(window) }) else { return nil }
        var result = fresh
        result.recompute()
        return result
    }

    private func readExtents(_ window: Window) -> (left: Int, right: Int, top: Int, bottom: Int) {
        guard let values = connection.propertyValues(window, .netFrameExtents, maxCount: 4), values.count == 4
        else {
            return (0, 0, 0, 0)
        }
        // A hostile value must not make an absurd rectangle.
        let bounded = values.map { Int(min($0, 4096)) }
        return (bounded[0], bounded[1], bounded[2], bounded[3])
    }

    private func readDesktop(_ window: Window) -> UInt32? {
        guard let value = connection.propertyValues(window, .netWMDesktop, maxCount: 1)?.first else { return nil }
        return UInt32(truncatingIfNeeded: value)
    }

    private func readState(_ window: Window) -> (hidden: Bool, fullscreen: Bool) {
        let values = connection.propertyValues(window, .netWMState, maxCount: 64) ?? []
        return (values.contains(UInt(atoms.hidden)), values.contains(UInt(atoms.fullscreen)))
    }

    private func readIconic(_ window: Window) -> Bool {
        connection.propertyValues(window, .wmState, maxCount: 2)?.first == UInt(IconicState)
    }

    /// Changes one tracked window with `update` (reads that may fail), emitting
    /// `.changed` if its value changed and `.removed` if it vanished meanwhile.
    private func update(_ window: Window, _ update: (inout Tracked) -> Void) {
        guard var state = tracked[window] else { return }
        if connection.withErrorWatch({ update(&state) }).errors.contains(where: { $0.concerns(window) }) {
            return remove(window)
        }
        state.recompute()
        guard tracked[window] != nil else { return }  // removed while reading
        let before = tracked[window]!.client
        tracked[window] = state
        if state.client != before { handler(.changed(state.client)) }
    }

    private func refreshGeometry(_ window: Window) {
        update(window) { state in
            if let geometry = connection.rootGeometry(of: window) { state.geometry = geometry }
        }
    }

    private func refreshFacts(_ window: Window) {
        guard tracked[window] != nil else { return }
        guard let facts = connection.readFacts(of: window) else { return remove(window) }
        update(window) { state in
            state.client.facts = facts
            state.client.pid = facts.windowID == UInt(window) ? facts.pid : connection.processID(of: window)
        }
    }

    // MARK: Events

    private func handle(_ event: inout XEvent) {
        let root = connection.root
        switch sw_event_type(&event) {
        case FocusIn, FocusOut:
            let focus = event.xfocus
            guard tracked[focus.window] != nil, focus.detail != NotifyInferior, focus.detail != NotifyPointer else {
                break
            }
            let window = WindowID(UInt(focus.window))
            if focus.type == FocusOut, focus.mode == NotifyGrab {
                handler(.keyboardGrab(window, held: true))
            } else if focus.type == FocusIn, focus.mode == NotifyWhileGrabbed {
                handler(.keyboardGrab(window, held: true))
            } else if focus.type == FocusIn, focus.mode == NotifyUngrab {
                handler(.keyboardGrab(window, held: false))
            }
        case PropertyNotify:
            let property = event.xproperty
            if property.window == root {
                handleRootProperty(property)
            } else if tracked[property.window] != nil {
                handleClientProperty(property.window, property.atom)
            }
        case ConfigureNotify:
            let configure = event.xconfigure
            if configure.event == configure.window, tracked[configure.window] != nil {
                // Synthetic events (the window manager's, in root coordinates) can be
                // sent by anyone, the application itself included: ask the server.
                refreshGeometry(configure.window)
            } else if configure.event == root {
                // A frame moved: every client inside it moved with it.
                for (window, state) in tracked where state.topLevel == configure.window && window != configure.window {
                    refreshGeometry(window)
                }
                handler(.restacked)
            }
        case MapNotify:
            let map = event.xmap
            if map.event == map.window, keptUnmapped[map.window] != nil {
                keptUnmapped[map.window] = true
                unmap(WindowID(UInt(map.window)))
            } else if map.event == map.window, tracked[map.window] != nil {
                update(map.window) { $0.mapped = true }
            } else if map.event == root {
                if map.override_redirect != 0 {
                    unmanagedMapped(map.window)
                } else if !usesWindowManager {
                    add(map.window)
                }
            }
        case UnmapNotify:
            let unmap = event.xunmap
            if unmap.event == unmap.window, tracked[unmap.window] != nil {
                update(unmap.window) { $0.mapped = false }
            } else if unmap.event == root, !usesWindowManager {
                remove(unmap.window)
            }
        case DestroyNotify:
            let destroyed = event.xdestroywindow.window
            keptUnmapped[destroyed] = nil
            if destroyed == windowManagerCheck {
                windowManagerCheck = nil
                windowManagerGone()
            }
            remove(destroyed)
        case ReparentNotify:
            let reparent = event.xreparent
            if reparent.event == reparent.window, tracked[reparent.window] != nil {
                update(reparent.window) { state in
                    state.topLevel = connection.topLevelAncestor(of: reparent.window) ?? reparent.window
                    if let geometry = connection.rootGeometry(of: reparent.window) { state.geometry = geometry }
                }
            } else if reparent.event == root, !usesWindowManager, reparent.parent != root {
                remove(reparent.window)
            }
        default:
            break
        }
    }

    private func handleRootProperty(_ property: XPropertyEvent) {
        switch property.atom {
        case atoms.clientList where usesWindowManager:
            syncClients()
        case atoms.activeWindow where usesWindowManager:
            // The value read belongs to the last change: if another is queued, it reports.
            guard !connection.isPropertyChangeQueued(connection.root, atoms.activeWindow) else { return }
            let window = connection.propertyWindow(connection.root, .netActiveWindow)
            // Reported even when it names the same window as the last report: the
            // changes skipped in between (another window had it for a moment) mean it
            // was activated again, which is what a shield must answer.
            active = window
            handler(.activated(activeWindow, serverTime: ServerTime(property.time)))
        case atoms.supportingCheck, atoms.supported:
            let had = usesWindowManager
            detectWindowManager()
            if had != usesWindowManager { syncClients() }
        default:
            break
        }
    }

    private func handleClientProperty(_ window: Window, _ atom: Atom) {
        switch atom {
        case atoms.frameExtents:
            update(window) { $0.extents = readExtents(window) }
        case atoms.desktop:
            update(window) { $0.client.desktop = readDesktop(window) }
        case atoms.state:
            update(window) { state in
                let read = readState(window)
                state.hidden = read.hidden
                state.client.isFullscreen = read.fullscreen
            }
        case atoms.wmState:
            update(window) { $0.iconic = readIconic(window) }
        case let atom where identityAtoms.contains(atom):
            refreshFacts(window)
            // Dialogs report their owner's identity: refresh those that name this window.
            for (other, state) in tracked where other != window && state.client.facts.windowID == UInt(window) {
                refreshFacts(other)
            }
        default:
            break
        }
    }

    /// Whether an override-redirect top level is an application's own (not the window
    /// manager's, not a frame, not this connection's).
    private func isApplicationsUnmanaged(_ window: Window) -> Bool {
        if let wm = windowManagerClient, UInt(window) & ~wm.mask == wm.base { return false }
        if tracked.values.contains(where: { $0.topLevel == window }) { return false }  // a frame
        return window != connection.timeProbeWindow
    }

    private func unmanagedMapped(_ window: Window) {
        guard isApplicationsUnmanaged(window) else { return }
        let facts = connection.readFacts(of: window)
        let pid = connection.ignoringErrors {
            facts?.windowID == UInt(window) ? facts?.pid : connection.processID(of: window)
        }
        handler(.unmanagedMapped(WindowID(UInt(window)), facts: facts, pid: pid))
    }

    // MARK: Asked by the shields' audit

    /// Where each client window is in the stacking order now: its top level's place among
    /// the root's children, bottom to top (one round trip; the top levels are followed from
    /// reparent events).
    public func stackingPositions() -> [WindowID: Int] {
        let order = connection.topLevelWindows()
        let place = Dictionary(
            order.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { first, _ in first })
        var positions: [WindowID: Int] = [:]
        for (window, state) in tracked {
            if let position = place[state.topLevel] { positions[WindowID(UInt(window))] = position }
        }
        return positions
    }

    /// The applications' mapped override-redirect windows now (menus, popups, windows that
    /// bypass the window manager), with what they say and their clients' processes.
    public func unmanagedWindows() -> [(id: WindowID, facts: WindowFacts?, pid: Int32?)] {
        connection.ignoringErrors {
            connection.topLevelWindows().compactMap { window in
                guard let attributes = connection.attributes(of: window), attributes.mapped,
                    attributes.overrideRedirect,
                    isApplicationsUnmanaged(window)
                else { return nil }
                let facts = connection.readFacts(of: window)
                return (
                    WindowID(UInt(window)), facts,
                    facts?.windowID == UInt(window) ? facts?.pid : connection.processID(of: window)
                )
            }
        }
    }

    /// Keeps another client's window unmapped wherever it is put, until `letGo`: a covered
    /// window taken from its shield (withdrawn, then reparented into some other window, where
    /// no shield follows it). Any client may map it again; it is unmapped again at once.
    /// False when the window is gone.
    @discardableResult
    public func keepUnmapped(_ id: WindowID) -> Bool {
        let window = Window(id.rawValue)
        let mapped: Bool? = connection.ignoringErrors {
            connection.selectInput(window, mask: [.structureNotify, .propertyChange])
            return connection.attributes(of: window)?.mapped
        }
        guard let mapped else { return false }
        keptUnmapped[window] = keptUnmapped[window] ?? false || mapped
        if mapped { unmap(id) }
        return true
    }

    /// Stops keeping `id` unmapped; maps it again if this watcher unmapped it.
    public func letGo(_ id: WindowID) {
        let window = Window(id.rawValue)
        guard let unmappedHere = keptUnmapped.removeValue(forKey: window), unmappedHere else { return }
        connection.ignoringErrors {
            XMapWindow(connection.display, window)
            connection.sync()
        }
    }

    /// The windows kept unmapped now.
    public var keptUnmappedWindows: [WindowID] { keptUnmapped.keys.map { WindowID(UInt($0)) } }

    /// Unmaps another client's window (any client may): an override-redirect window of a
    /// shielded application, which no shield can cover.
    public func unmap(_ id: WindowID) {
        connection.ignoringErrors {
            XUnmapWindow(connection.display, Window(id.rawValue))
            connection.sync()
        }
    }
}

extension XProtocolError {
    /// Whether this error says `window` does not exist (BadWindow, or BadDrawable from XGetGeometry).
    func concerns(_ window: Window) -> Bool {
        (errorCode == .badWindow || errorCode == .badDrawable) && resourceID == UInt(window)
    }
}

extension XConnection {
    struct BasicAttributes {
        var mapped: Bool
        var overrideRedirect: Bool
        var inputOutput: Bool
    }

    func attributes(of window: Window) -> BasicAttributes? {
        var attributes = XWindowAttributes()
        guard XGetWindowAttributes(display, window, &attributes) != 0 else { return nil }
        return BasicAttributes(
            mapped: attributes.map_state != IsUnmapped, overrideRedirect: attributes.override_redirect != 0,
            inputOutput: attributes.`class` == InputOutput)
    }

    /// A client without a window manager: mapped, InputOutput, not override-redirect.
    func isPlainMappedTopLevel(_ window: Window) -> Bool {
        guard let attributes = ignoringErrors({ attributes(of: window) }) else { return false }
        return attributes.mapped && attributes.inputOutput && !attributes.overrideRedirect
    }

    /// Where `window` is on the root, without its border: two round trips, the
    /// server's own answer (events can be forged).
    func rootGeometry(of window: Window) -> ScreenRect? {
        var rootReturn: Window = 0
        var x: Int32 = 0
        var y: Int32 = 0
        var width: UInt32 = 0
        var height: UInt32 = 0
        var border: UInt32 = 0
        var depth: UInt32 = 0
        guard XGetGeometry(display, window, &rootReturn, &x, &y, &width, &height, &border, &depth) != 0 else {
            return nil
        }
        var rootX: Int32 = 0
        var rootY: Int32 = 0
        var child: Window = 0
        guard XTranslateCoordinates(display, window, root, 0, 0, &rootX, &rootY, &child) != 0 else { return nil }
        return ScreenRect(x: Int(rootX), y: Int(rootY), width: Int(width), height: Int(height))
    }

    /// The root's child that holds `window` (its frame under a reparenting window manager).
    func topLevelAncestor(of window: Window) -> Window? {
        var current = window
        for _ in 0..<64 {
            var rootReturn: Window = 0
            var parent: Window = 0
            var children: UnsafeMutablePointer<Window>?
            var count: UInt32 = 0
            guard XQueryTree(display, current, &rootReturn, &parent, &children, &count) != 0 else { return nil }
            if let children { XFree(children) }
            if parent == root || parent == 0 { return current }
            current = parent
        }
        return nil
    }

    /// The X client that created `window`, as its resource id base and mask (X-Resource).
    func resourceClient(of window: Window) -> (base: UInt, mask: UInt)? {
        guard hasXRes else { return nil }
        var count: Int32 = 0
        var clients: UnsafeMutablePointer<XResClient>?
        guard XResQueryClients(display, &count, &clients) == Success, let clients else { return nil }
        defer { XFree(clients) }
        for index in 0..<Int(count) {
            let client = clients[index]
            let mask = UInt(client.resource_mask)
            if mask != 0, UInt(window) & ~mask == UInt(client.resource_base) {
                return (UInt(client.resource_base), mask)
            }
        }
        return nil
    }
}
