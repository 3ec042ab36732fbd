import CX11

/// An X atom by name: the properties and messages Screenward reads and sends, named once
/// here instead of as strings at each use. `XConnection.atom(_:)` interns one (cached).
public struct AtomName: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    /// A name this file does not list (a test's own property).
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    // ICCCM (the X Consortium's conventions for clients)
    public static let utf8String = AtomName("UTF8_STRING")
    public static let wmClass = AtomName("WM_CLASS")
    public static let wmDeleteWindow = AtomName("WM_DELETE_WINDOW")
    public static let wmName = AtomName("WM_NAME")
    public static let wmProtocols = AtomName("WM_PROTOCOLS")
    public static let wmState = AtomName("WM_STATE")
    public static let wmTransientFor = AtomName("WM_TRANSIENT_FOR")

    // EWMH (the window managers' conventions)
    public static let netActiveWindow = AtomName("_NET_ACTIVE_WINDOW")
    public static let netClientList = AtomName("_NET_CLIENT_LIST")
    public static let netCloseWindow = AtomName("_NET_CLOSE_WINDOW")
    public static let netFrameExtents = AtomName("_NET_FRAME_EXTENTS")
    public static let netSupported = AtomName("_NET_SUPPORTED")
    public static let netSupportingWMCheck = AtomName("_NET_SUPPORTING_WM_CHECK")
    public static let netWMDesktop = AtomName("_NET_WM_DESKTOP")
    public static let netWMName = AtomName("_NET_WM_NAME")
    public static let netWMPID = AtomName("_NET_WM_PID")
    public static let netWMState = AtomName("_NET_WM_STATE")
    public static let netWMStateAbove = AtomName("_NET_WM_STATE_ABOVE")
    public static let netWMStateFullscreen = AtomName("_NET_WM_STATE_FULLSCREEN")
    public static let netWMStateHidden = AtomName("_NET_WM_STATE_HIDDEN")

    // Toolkits' own
    public static let gtkApplicationID = AtomName("_GTK_APPLICATION_ID")
    public static let kdeNetWMDesktopFile = AtomName("_KDE_NET_WM_DESKTOP_FILE")

    // Screenward's own
    /// Changed to read the server's clock.
    public static let screenwardClockProbe = AtomName("_SCREENWARD_CLOCK_PROBE")
    /// On a held window: the rectangles that take no input (for the tests and for a successor agent).
    public static let screenwardInputHeld = AtomName("_SCREENWARD_INPUT_HELD")
    /// Changed to get a fresh server timestamp.
    public static let screenwardTimeProbe = AtomName("_SCREENWARD_TIME_PROBE")
}

/// The events a client asks the server for on a window (`XSelectInput`), by name.
public struct EventMask: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let none: EventMask = []
    public static let propertyChange = EventMask(rawValue: PropertyChangeMask)
    public static let structureNotify = EventMask(rawValue: StructureNotifyMask)
    public static let substructureNotify = EventMask(rawValue: SubstructureNotifyMask)
    public static let substructureRedirect = EventMask(rawValue: SubstructureRedirectMask)
    public static let focusChange = EventMask(rawValue: FocusChangeMask)
}
