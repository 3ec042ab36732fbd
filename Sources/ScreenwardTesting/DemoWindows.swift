import CX11
import Foundation
import SessionDisplay
import X11Session

/// Plain Xlib top-level windows with chosen identity properties: the demo and the
/// tests use them to play applications whose WM_CLASS, application id, title and
/// pid are exactly what the scenario needs.
public final class DemoWindows {
    public struct Spec: Sendable {
        public var instance: String
        public var className: String
        public var title: String
        public var gtkApplicationID: String?
        /// Sets `_NET_WM_PID` to this process unless false.
        public var setsPID: Bool
        public var width: UInt32
        public var height: UInt32
        /// Bypasses the window manager (as menus and popups do).
        public var overrideRedirect: Bool

        public init(
            instance: String, className: String, title: String, gtkApplicationID: String? = nil,
            setsPID: Bool = true, width: UInt32 = 480, height: UInt32 = 320, overrideRedirect: Bool = false
        ) {
            self.overrideRedirect = overrideRedirect
            self.instance = instance
            self.className = className
            self.title = title
            self.gtkApplicationID = gtkApplicationID
            self.setsPID = setsPID
            self.width = width
            self.height = height
        }
    }

    private let connection: XConnection
    private var labels: [Window: String] = [:]
    private let palette: [UInt] = [0x3465a4, 0x4e9a06, 0xc4a000, 0x75507b, 0xcc0000, 0x06989a, 0xce5c00]

    /// Called when a window manager or another client asks a window to close
    /// (`WM_DELETE_WINDOW`); nil ignores the request, as a hung application would.
    public var onDeleteRequest: ((WindowID) -> Void)?
    /// Called with "key <keycode>" or "button <number>" for input a window receives,
    /// and "focus" when it is given the keyboard focus; set before creating windows
    /// (their event mask includes input only then).
    public var onInput: ((WindowID, String) -> Void)?

    public init(connection: XConnection) {
        self.connection = connection
        connection.addEventHandler { [unowned self] event in
            let type = sw_event_type(&event)
            if type == Expose, event.xexpose.count == 0 { self.draw(event.xexpose.window) }
            if type == KeyPress { self.onInput?(WindowID(UInt(event.xkey.window)), "key \(event.xkey.keycode)") }
            if type == ButtonPress {
                self.onInput?(WindowID(UInt(event.xbutton.window)), "button \(event.xbutton.button)")
            }
            // The window manager gave it the focus (not a grab's passing focus events).
            if type == FocusIn, event.xfocus.mode == NotifyNormal, event.xfocus.detail != NotifyPointer,
                event.xfocus.detail != NotifyInferior
            {
                self.onInput?(WindowID(UInt(event.xfocus.window)), "focus")
            }
            if type == ClientMessage, event.xclient.message_type == connection.atom(.wmProtocols),
                Atom(UInt(bitPattern: event.xclient.data.l.0)) == connection.atom(.wmDeleteWindow)
            {
                self.onDeleteRequest?(WindowID(UInt(event.xclient.window)))
            }
        }
    }

    /// Creates and maps a window; returns its id.
    @discardableResult
    public func create(_ spec: Spec, x: Int32 = 40, y: Int32 = 40) -> WindowID {
        let display = connection.display
        let background = palette[labels.count % palette.count]
        let window = XCreateSimpleWindow(display, connection.root, x, y, spec.width, spec.height, 0, 0, background)
        if spec.overrideRedirect {
            var attributes = XSetWindowAttributes()
            attributes.override_redirect = 1
            XChangeWindowAttributes(display, window, UInt(CWOverrideRedirect), &attributes)
        }
        setClass(WindowID(UInt(window)), instance: spec.instance, className: spec.className)
        setTitle(WindowID(UInt(window)), spec.title)
        if let id = spec.gtkApplicationID { setUTF8(window, .gtkApplicationID, id) }
        if spec.setsPID {
            var pid = CLong(ProcessInfo.processInfo.processIdentifier)
            XChangeProperty(
                display, window, connection.atom(.netWMPID), Atom(XA_CARDINAL), 32, PropModeReplace,
                withUnsafeBytes(of: &pid) { $0.baseAddress!.assumingMemoryBound(to: UInt8.self) }, 1)
        }
        var protocols = [connection.atom(.wmDeleteWindow)]
        XSetWMProtocols(display, window, &protocols, 1)
        XSelectInput(
            display, window, ExposureMask | (onInput == nil ? 0 : KeyPressMask | ButtonPressMask | FocusChangeMask))
        XMapWindow(display, window)
        labels[window] = "\(spec.title)  |  WM_CLASS \(spec.instance).\(spec.className)"
        XFlush(display)
        return WindowID(UInt(window))
    }

    /// Grabs the keyboard actively (as a menu or a screen locker does); false while
    /// someone else holds it.
    public func grabKeyboard() -> Bool {
        let status = XGrabKeyboard(
            connection.display, connection.root, 0, GrabModeAsync, GrabModeAsync, Time(CurrentTime))
        XFlush(connection.display)
        return status == GrabSuccess
    }

    public func setClass(_ window: WindowID, instance: String, className: String) {
        var bytes = Array(instance.utf8) + [0] + Array(className.utf8) + [0]
        XChangeProperty(
            connection.display, Window(window.rawValue), Atom(XA_WM_CLASS), Atom(XA_STRING), 8, PropModeReplace, &bytes,
            Int32(bytes.count))
        XFlush(connection.display)
    }

    public func setTitle(_ window: WindowID, _ title: String) {
        setUTF8(Window(window.rawValue), .netWMName, title)
        var bytes = Array(title.utf8)
        XChangeProperty(
            connection.display, Window(window.rawValue), Atom(XA_WM_NAME), Atom(XA_STRING), 8, PropModeReplace, &bytes,
            Int32(bytes.count))
        labels[Window(window.rawValue)] = title
        XFlush(connection.display)
    }

    /// Writes raw bytes as a property (tests use it for hostile values).
    public func setRawProperty(_ window: WindowID, _ name: String, type: String, bytes: [UInt8]) {
        var bytes = bytes
        XChangeProperty(
            connection.display, Window(window.rawValue), connection.atom(AtomName(name)),
            connection.atom(AtomName(type)), 8,
            PropModeReplace, &bytes, Int32(bytes.count))
        XFlush(connection.display)
    }

    public func destroy(_ window: WindowID) {
        labels[Window(window.rawValue)] = nil
        connection.ignoringErrors {
            XDestroyWindow(connection.display, Window(window.rawValue))
            XSync(connection.display, 0)
        }
    }

    private func setUTF8(_ window: Window, _ name: AtomName, _ value: String) {
        var bytes = Array(value.utf8)
        XChangeProperty(
            connection.display, window, connection.atom(name), connection.atom(.utf8String), 8, PropModeReplace,
            &bytes, Int32(bytes.count))
    }

    private func draw(_ window: Window) {
        guard let label = labels[window] else { return }
        let display = connection.display
        let gc = XCreateGC(display, window, 0, nil)
        defer { XFreeGC(display, gc) }
        XSetForeground(display, gc, sw_white_pixel(display))
        // Core X fonts are Latin-1: draw what is ASCII and mark the rest.
        let bytes = label.unicodeScalars.prefix(200).map { CChar($0.isASCII ? Int8($0.value) : 0x3f) }
        XDrawString(display, window, gc, 16, 28, bytes, Int32(bytes.count))
        XFlush(display)
    }
}
