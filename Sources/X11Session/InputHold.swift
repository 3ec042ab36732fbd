import CX11
import SessionDisplay

/// Keeps a covered window from receiving any input, whatever the window manager
/// does with the focus.
///
/// A shield takes the focus back a few milliseconds after the window manager gave
/// it to the covered window (Alt+Tab, a taskbar click); keys typed in between
/// would reach the application. So, for as long as the window is held:
/// - a passive grab of every key with any modifiers on the window
///   (`XGrabKey(AnyKey, AnyModifier)`) sends every key pressed while the focus is
///   in it (or in any of its subwindows) to this connection instead. Keys the
///   window manager grabs on the root (Alt+Tab) still go to the window manager:
///   the server gives an ancestor's passive grab precedence.
/// - the window's input region is emptied (Shape extension, `ShapeInput`), so the
///   pointer goes through it and its subwindows to what lies below; no click reaches
///   it even before its shield is mapped above it. A client that sets its input
///   region again is noticed (`ShapeNotify`) and emptied again.
/// Both are undone by `release`, the input region restored as it was. The region to
/// restore is also kept on the window itself (`_SCREENWARD_INPUT_HELD`), so an agent
/// killed while holding a window (its grabs end with its connection; the emptied region
/// would not) gives it back when it starts again (`releaseLeftovers`).
///
/// What it cannot stop: a client that grabs the keyboard or pointer itself (an
/// active grab wins over passive ones), which the shield presenter detects and
/// answers by closing the application.
public final class InputHold {
    public enum Failure: Error, CustomStringConvertible {
        /// Another client already holds a passive key grab on the window.
        case keysTakenByAnotherClient(WindowID)
        case windowGone(WindowID)
        case noShapeExtension

        public var description: String {
            switch self {
            case .keysTakenByAnotherClient(let window): "another client grabs the keys of \(window)"
            case .windowGone(let window): "\(window) is gone"
            case .noShapeExtension: "the X server lacks the SHAPE extension"
            }
        }
    }

    /// A window's own input region before the hold: nil when it had none (the
    /// default, its whole bounding region).
    private struct Held {
        var ownInputRegion: [XRectangle]?
    }

    private let connection: XConnection
    private var held: [Window: Held] = [:]
    private var shapeEventBase: Int32?
    private var eventHandlerID: Int?
    /// Keys pressed on a held window and not yet released: while any is down, the
    /// keyboard is grabbed by this connection (the activated passive grab).
    private var keysDown: Set<UInt32> = []

    /// Told when input meant for a held window was caught (a key pressed while the
    /// window manager had just given it the focus): its shield should take the focus.
    public var onInputCaught: ((WindowID) -> Void)?

    public init(connection: XConnection) {
        self.connection = connection
    }

    deinit {
        for window in held.keys { release(WindowID(UInt(window))) }
        if let eventHandlerID { connection.removeEventHandler(eventHandlerID) }
    }

    /// Whether this connection holds the keyboard now, because a key was pressed on
    /// a held window and is still down. The shield then sees a grab in its focus
    /// events; that grab is ours, not the application's.
    public var holdsKeyboard: Bool { !keysDown.isEmpty }

    public func isHeld(_ window: WindowID) -> Bool { held[Window(window.rawValue)] != nil }

    /// Starts holding `window`'s input. One round trip (to learn whether the grab
    /// was refused); on failure nothing is left behind.
    public func hold(_ window: WindowID) throws {
        let xid = Window(window.rawValue)
        guard held[xid] == nil else { return }
        try startWatching()
        let display = connection.display
        let (ownRegion, errors) = connection.withErrorWatch {
            // A leftover of an agent that was killed while holding it: the region recorded
            // then is the window's own, not the empty one it has now.
            let ownRegion = recordedRegion(of: xid) ?? inputRegion(of: xid)
            record(ownRegion, on: xid)
            XGrabKey(display, Int32(AnyKey), UInt32(AnyModifier), xid, 0, GrabModeAsync, GrabModeAsync)
            XShapeSelectInput(display, xid, UInt(ShapeNotifyMask))
            XShapeCombineRectangles(display, xid, ShapeInput, 0, 0, nil, 0, ShapeSet, Unsorted)
            XSync(display, 0)
            return ownRegion
        }
        if !errors.isEmpty {
            undo(xid, ownRegion: ownRegion)
            if errors.contains(where: { $0.errorCode == .badAccess }) {
                throw Failure.keysTakenByAnotherClient(window)
            }
            throw Failure.windowGone(window)
        }
        held[xid] = Held(ownInputRegion: ownRegion)
    }

    /// Gives `window` its input back. Requests only; a window already gone is fine.
    public func release(_ window: WindowID) {
        let xid = Window(window.rawValue)
        guard let state = held.removeValue(forKey: xid) else { return }
        // The window may be gone: the errors, if any, are dropped.
        connection.ignoringErrors {
            undo(xid, ownRegion: state.ownInputRegion)
            XFlush(connection.display)
        }
    }

    /// Gives back the input of windows an earlier agent held and never released (it
    /// was killed): those of `windows` that carry the record and are not held now.
    /// Returns them.
    @discardableResult
    public func releaseLeftovers(among windows: [WindowID]) -> [WindowID] {
        var released: [WindowID] = []
        for window in windows where held[Window(window.rawValue)] == nil {
            let xid = Window(window.rawValue)
            connection.ignoringErrors {
                if let own = recordedRegion(of: xid) {
                    undo(xid, ownRegion: own)
                    released.append(window)
                }
                XFlush(connection.display)
            }
        }
        return released
    }

    private func undo(_ window: Window, ownRegion: [XRectangle]?) {
        let display = connection.display
        XDeleteProperty(display, window, connection.atom(Self.recordProperty))
        XUngrabKey(display, Int32(AnyKey), UInt32(AnyModifier), window)
        XShapeSelectInput(display, window, 0)
        if var rectangles = ownRegion {
            XShapeCombineRectangles(
                display, window, ShapeInput, 0, 0, &rectangles, Int32(rectangles.count), ShapeSet, Unsorted)
        } else {
            // No region of its own: back to the default (input where the window is).
            XShapeCombineMask(display, window, ShapeInput, 0, 0, Pixmap(0), ShapeSet)
        }
    }

    private func startWatching() throws {
        guard eventHandlerID == nil else { return }
        var eventBase: Int32 = 0
        var errorBase: Int32 = 0
        guard XShapeQueryExtension(connection.display, &eventBase, &errorBase) != 0 else {
            throw Failure.noShapeExtension
        }
        shapeEventBase = eventBase
        eventHandlerID = connection.addEventHandler { [unowned self] event in handle(&event) }
    }

    private func handle(_ event: inout XEvent) {
        let type = sw_event_type(&event)
        switch type {
        case KeyPress where held[event.xkey.window] != nil:
            keysDown.insert(event.xkey.keycode)
            onInputCaught?(WindowID(UInt(event.xkey.window)))
        case KeyRelease:
            keysDown.remove(event.xkey.keycode)
        case let type where shapeEventBase.map({ type == $0 + ShapeNotify }) == true:
            let window = sw_shape_event_window(&event)
            guard sw_shape_event_kind(&event) == ShapeInput, held[window] != nil else { return }
            reassert(window)
        default:
            break
        }
    }

    /// The client set an input region of its own while held: remember it (it is the
    /// one to restore) and empty it again. Our own emptying is heard too, and ignored.
    private func reassert(_ window: Window) {
        connection.ignoringErrors {
            let region = inputRegion(of: window)
            if region?.isEmpty != true {
                held[window]?.ownInputRegion = region
                XShapeCombineRectangles(connection.display, window, ShapeInput, 0, 0, nil, 0, ShapeSet, Unsorted)
                XFlush(connection.display)
            }
        }
    }

    private static let recordProperty = AtomName.screenwardInputHeld
    private static let maximumRecordedRectangles = 256

    /// Writes the region to restore on the window: CARDINAL values, 0 for "none of its
    /// own", else 1 followed by x, y, width, height of each rectangle.
    private func record(_ region: [XRectangle]?, on window: Window) {
        var values: [CLong] = [region == nil ? 0 : 1]
        for rectangle in (region ?? []).prefix(Self.maximumRecordedRectangles) {
            values += [CLong(rectangle.x), CLong(rectangle.y), CLong(rectangle.width), CLong(rectangle.height)]
        }
        _ = values.withUnsafeBytes { bytes in
            XChangeProperty(
                connection.display, window, connection.atom(Self.recordProperty), Atom(XA_CARDINAL), 32,
                PropModeReplace,
                bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(values.count))
        }
    }

    /// The region recorded on the window by `record`: nil when there is no record;
    /// `.some(nil)` for "none of its own". Anything malformed reads as "none of its own".
    private func recordedRegion(of window: Window) -> [XRectangle]?? {
        guard
            let values = connection.propertyValues(
                window, Self.recordProperty, maxCount: 1 + 4 * Self.maximumRecordedRectangles),
            let flag = values.first
        else { return nil }
        let numbers = values.dropFirst().map { CLong(bitPattern: $0) }
        guard flag == 1, numbers.count.isMultiple(of: 4) else { return .some(nil) }
        return .some(
            stride(from: 0, to: numbers.count, by: 4).map { i in
                XRectangle(
                    x: Int16(truncatingIfNeeded: numbers[i]), y: Int16(truncatingIfNeeded: numbers[i + 1]),
                    width: UInt16(truncatingIfNeeded: numbers[i + 2]),
                    height: UInt16(truncatingIfNeeded: numbers[i + 3]))
            })
    }

    /// The window's input region as rectangles; nil when it is the default one (the
    /// whole window, border included), so restoring it follows later resizes.
    private func inputRegion(of window: Window) -> [XRectangle]? {
        var count: Int32 = 0
        var ordering: Int32 = 0
        guard let list = XShapeGetRectangles(connection.display, window, ShapeInput, &count, &ordering) else {
            return count == 0 ? [] : nil
        }
        defer { XFree(list) }
        let rectangles = (0..<Int(count)).map { list[$0] }
        var root: Window = 0
        var x: Int32 = 0
        var y: Int32 = 0
        var width: UInt32 = 0
        var height: UInt32 = 0
        var border: UInt32 = 0
        var depth: UInt32 = 0
        if XGetGeometry(connection.display, window, &root, &x, &y, &width, &height, &border, &depth) != 0,
            rectangles.count == 1
        {
            let whole = rectangles[0]
            let b = Int(border)
            if Int(whole.x) == -b, Int(whole.y) == -b, Int(whole.width) == Int(width) + 2 * b,
                Int(whole.height) == Int(height) + 2 * b
            {
                return nil
            }
        }
        return rectangles
    }
}
