import CX11
import ScreenwardCore
import SessionDisplay
import X11Session

/// What tests and tools look at on another client's window: where it is drawn, its
/// names and whether it is mapped.
extension XConnection {
    /// Where `window` is drawn, in root-window pixels (its inside, without a window
    /// manager's frame); nil when it does not exist.
    public func rootFrame(of window: WindowID) -> ScreenRect? {
        var attributes = XWindowAttributes()
        var x: Int32 = 0
        var y: Int32 = 0
        var child: Window = 0
        let (found, errors) = withErrorWatch {
            XGetWindowAttributes(display, Window(window.rawValue), &attributes) != 0
                && XTranslateCoordinates(display, Window(window.rawValue), root, 0, 0, &x, &y, &child) != 0
        }
        guard errors.isEmpty, found else { return nil }
        return ScreenRect(x: Int(x), y: Int(y), width: Int(attributes.width), height: Int(attributes.height))
    }

    /// Whether `window` exists and is mapped (viewable, or mapped under an unmapped parent).
    public func isMapped(_ window: WindowID) -> Bool {
        windowExists(window)
    }

    /// `window`'s WM_CLASS (instance, class) and title (`_NET_WM_NAME`, else WM_NAME).
    public func names(of window: WindowID) -> (instance: String?, className: String?, title: String?) {
        ignoringErrors {
            let wmClass = propertyStrings(Window(window.rawValue), .wmClass, maxCharacters: 256)
            let title =
                propertyString(Window(window.rawValue), .netWMName, maxCharacters: 1024)
                ?? propertyString(Window(window.rawValue), .wmName, maxCharacters: 1024)
            return (wmClass?.first, wmClass.flatMap { $0.count > 1 ? $0[1] : nil }, title)
        }
    }
}
