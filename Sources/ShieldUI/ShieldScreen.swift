import CGtk
import ScreenwardCore

/// Where windows are on the screen, as GDK finds them.
public enum ShieldScreen {
    /// Where the X window `windowID` is drawn, in root-window pixels (its inside,
    /// without a window manager's frame); nil when there is no such window.
    public static func frame(ofWindow windowID: UInt) -> ScreenRect? {
        guard let display = gdk_display_get_default() else { return nil }
        var x: Int32 = 0
        var y: Int32 = 0
        var width: Int32 = 0
        var height: Int32 = 0
        guard sw_window_root_geometry(display, Window(windowID), &x, &y, &width, &height) != 0 else { return nil }
        return ScreenRect(x: Int(x), y: Int(y), width: Int(width), height: Int(height))
    }

}
