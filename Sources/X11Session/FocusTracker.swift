import CX11
import GLibRuntime
import ScreenwardCore
import SessionDisplay

/// Follows the focus from X events alone: `_NET_ACTIVE_WINDOW` on the root window
/// when an EWMH window manager runs, else the input focus; and the focused
/// window's own identity properties and destruction. It never polls.
public final class FocusTracker {
    /// Window managers clear `_NET_ACTIVE_WINDOW` for a moment while moving the
    /// focus (openbox for a millisecond or two, others during Alt+Tab). A gap shorter
    /// than this is not a loss of focus: the previous application keeps it until the
    /// next one takes it. A longer gap ends the focus at the moment it began.
    public static let transientGap: Duration = .milliseconds(250)

    private let connection: XConnection
    private let loop: MainLoop
    private var pendingLoss: MainLoop.Registration?
    private var handler: (FocusObservation) -> Void = { _ in }
    private var active: Window?
    public private(set) var usesWindowManager = false

    /// The properties that can change who a window belongs to.
    private static let identityProperties: [AtomName] = [
        .wmClass, .gtkApplicationID, .kdeNetWMDesktopFile, .netWMName, .wmName,
        .wmTransientFor, .netWMPID,
    ]
    private var identityAtoms: Set<Atom> = []
    /// Managed client windows (`_NET_CLIENT_LIST`), whose focus events we follow.
    private var clients: Set<Window> = []
    /// The client that most recently received the input focus, in event order. It
    /// tells which window a `_NET_ACTIVE_WINDOW` change named when the agent fell
    /// behind and the property already holds a later value (see `refresh`).
    private var lastFocusedClient: Window?
    /// While behind: the client the focus events name, and the latest
    /// `_NET_ACTIVE_WINDOW` change seen while it kept the focus. A window manager
    /// may write None first and the window a moment later; the later stamp is the
    /// one the window took the focus at, so the report waits for the next focus
    /// event (or for the agent to catch up) to know which change was the last.
    private var behind: (client: Window, time: ClockReading, serverTime: ServerTime?)?

    public init(connection: XConnection, loop: MainLoop) {
        self.connection = connection
        self.loop = loop
    }

    public var activeWindow: WindowID? { active.map { WindowID(UInt($0)) } }

    /// Receives a line per decision, for `--verbose` diagnosis.
    public var trace: ((String) -> Void)?

    /// Starts watching; `handler` gets the current focus at once, then every change.
    public func start(_ handler: @escaping (FocusObservation) -> Void) {
        self.handler = handler
        identityAtoms = Set(Self.identityProperties.map { connection.atom($0) })
        connection.addEventHandler { [unowned self] event in self.handle(&event) }
        detectWindowManager()
        refresh(time: connection.timeSource.now(), cause: .initial, force: true)
    }

    // MARK: Events

    private func handle(_ event: inout XEvent) {
        switch sw_event_type(&event) {
        case PropertyNotify:
            let property = event.xproperty
            if property.window == connection.root {
                if property.atom == connection.atom(.netActiveWindow), usesWindowManager {
                    refresh(
                        time: connection.reading(forServerTime: property.time), cause: .activeWindowChanged,
                        serverTime: ServerTime(property.time))
                } else if property.atom == connection.atom(.netClientList), usesWindowManager {
                    followClients()
                } else if property.atom == connection.atom(.netSupportingWMCheck)
                    || property.atom == connection.atom(.netSupported)
                {
                    detectWindowManager()
                    refresh(time: connection.reading(forServerTime: property.time), cause: .activeWindowChanged)
                }
            } else if property.window == active, identityAtoms.contains(property.atom) {
                emitCurrent(
                    time: connection.reading(forServerTime: property.time), cause: .windowPropertiesChanged,
                    serverTime: ServerTime(property.time))
            }
        case DestroyNotify:
            if event.xdestroywindow.window == active {
                active = nil
                handler(
                    FocusObservation(
                        window: nil, facts: nil, time: connection.timeSource.now(), cause: .windowDestroyed))
            }
        case CreateNotify where !usesWindowManager:
            // Without a window manager, top-level windows report focus themselves.
            connection.selectInput(event.xcreatewindow.window, mask: .focusChange)
        case FocusIn where !usesWindowManager:
            refresh(time: connection.timeSource.now(), cause: .inputFocusChanged)
        case FocusIn:
            let focus = event.xfocus
            // Grabs (menus, Alt+Tab) move keyboard focus without a real change.
            if clients.contains(focus.window), focus.mode == NotifyNormal || focus.mode == NotifyWhileGrabbed {
                reportBehind()
                lastFocusedClient = focus.window
            }
        default:
            break
        }
    }

    // MARK: Window manager

    /// An EWMH window manager names a check window on the root that names itself.
    private func detectWindowManager() {
        let found =
            connection.windowManager()?.supported?.contains(UInt(connection.atom(.netActiveWindow))) ?? false
        usesWindowManager = found
        var rootMask: EventMask = .propertyChange
        if !found {
            rootMask.formUnion([.substructureNotify, .focusChange])
            selectFocusOnTopLevels()
        }
        connection.selectInput(connection.root, mask: rootMask)
        if found { followClients() }
    }

    /// Follows focus events on every managed client (a cheap mask: they come only
    /// when the focus moves).
    private func followClients() {
        let current = Set(
            (connection.propertyValues(connection.root, .netClientList, maxCount: 8192) ?? []).map { Window($0) })
        connection.ignoringErrors {
            for window in current.subtracting(clients) where window != active {
                connection.selectInput(window, mask: .focusChange)
            }
        }
        clients = current
    }

    private func selectFocusOnTopLevels() {
        connection.ignoringErrors {
            for window in connection.topLevelWindows() {
                connection.selectInput(window, mask: .focusChange)
            }
        }
    }

    // MARK: Reading the focus

    private func refresh(
        time: ClockReading, cause: FocusObservation.Cause, force: Bool = false, serverTime: ServerTime? = nil
    ) {
        let focused =
            usesWindowManager
            ? connection.propertyWindow(connection.root, .netActiveWindow) : connection.inputFocusTopLevel()
        // A property read returns the newest value. Every change made before the
        // read had its event queued before the reply came back, so if another change
        // is queued now, the value belongs to that later event: let it report.
        if usesWindowManager, cause == .activeWindowChanged,
            connection.isPropertyChangeQueued(connection.root, connection.atom(.netActiveWindow))
        {
            // If the agent fell behind (the machine was busy), the value read may
            // be several changes late, and the windows in between would be lost.
            // The focus events, queued in order with these changes, still say which
            // client took the focus before this change: report it here.
            let stamp = serverTime?.rawValue ?? 0
            if let client = lastFocusedClient, client != focused, client != active {
                trace?(
                    """
                    read \(focused.map { String($0, radix: 16) } ?? "none") for \(stamp); behind: the \
                    focus went to \(String(client, radix: 16))
                    """
                )
                behind = (client, time, serverTime)
            } else {
                trace?(
                    """
                    read \(focused.map { String($0, radix: 16) } ?? "none") for \(stamp); a later \
                    change is queued
                    """
                )
            }
            return
        }
        trace?("read \(focused.map { String($0, radix: 16) } ?? "none") for \(serverTime?.rawValue ?? 0)")
        // The window found while behind is the one read now: this change, the
        // later one, is when it took the focus.
        if behind?.client == focused { behind = nil }
        reportBehind()
        guard force || focused != active else { return }
        watch(focused)
        emitCurrent(time: time, cause: cause, serverTime: serverTime)
    }

    /// Reports the window found while behind, at the last change it was seen in.
    private func reportBehind() {
        guard let found = behind else { return }
        behind = nil
        guard found.client != active else { return }
        watch(found.client)
        emitCurrent(time: found.time, cause: .activeWindowChanged, serverTime: found.serverTime)
    }

    private func watch(_ window: Window?) {
        let errors = connection.withErrorWatch {
            if let previous = active, previous != window {
                // Focus events stay selected on every client (and every top level without a window manager).
                connection.selectInput(previous, mask: .focusChange)
            }
            if let window {
                connection.selectInput(window, mask: [.propertyChange, .structureNotify, .focusChange])
            }
            connection.sync()
        }.errors
        active = window
        if let window, errors.contains(where: { $0.errorCode == .badWindow && $0.resourceID == UInt(window) }) {
            active = nil  // gone before we could watch it; a new focus event follows
        }
    }

    private func emitCurrent(time: ClockReading, cause: FocusObservation.Cause, serverTime: ServerTime? = nil) {
        pendingLoss?.cancel()
        pendingLoss = nil
        guard let window = active else {
            let loss = FocusObservation(window: nil, facts: nil, time: time, cause: cause, serverTime: serverTime)
            if usesWindowManager, cause == .activeWindowChanged {
                pendingLoss = loop.schedule(after: Self.transientGap) { [unowned self] in
                    pendingLoss = nil
                    handler(loss)
                }
            } else {
                handler(loss)
            }
            return
        }
        guard let facts = connection.readFacts(of: window) else {
            active = nil
            handler(
                FocusObservation(window: nil, facts: nil, time: time, cause: .windowDestroyed, serverTime: serverTime))
            return
        }
        handler(
            FocusObservation(
                window: WindowID(UInt(window)), facts: facts, time: time, cause: cause, serverTime: serverTime))
    }
}

extension XConnection {
    /// The root's children (top-level windows without a window manager; frames with one).
    func topLevelWindows() -> [Window] {
        var rootReturn: Window = 0
        var parent: Window = 0
        var children: UnsafeMutablePointer<Window>?
        var count: UInt32 = 0
        guard XQueryTree(display, root, &rootReturn, &parent, &children, &count) != 0, let children else { return [] }
        defer { XFree(children) }
        return Array(UnsafeBufferPointer(start: children, count: Int(count)))
    }

    /// The top-level window holding the input focus, found by walking up from the
    /// focus window to the root's child. Nil for no focus or PointerRoot.
    func inputFocusTopLevel() -> Window? {
        var focus: Window = 0
        var revert: Int32 = 0
        XGetInputFocus(display, &focus, &revert)
        guard focus > 1, focus != root else { return nil }  // None = 0, PointerRoot = 1
        return ignoringErrors { topLevelAncestor(of: focus) }
    }
}
