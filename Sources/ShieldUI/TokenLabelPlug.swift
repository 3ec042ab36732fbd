import CGtk
import Foundation
import GtkBase

/// A label the owner draws inside an app's window (`Label(token)`): the icon and the name of
/// what the app's token stands for, in a GtkPlug embedded in the app's window (XEmbed), so
/// the name is drawn on the app's screen without reaching its process. It goes when the app's
/// window does (GTK tells a plug whose socket went away with a delete event) or on `close`.
public final class TokenLabelPlug {
    private let plug: UnsafeMutablePointer<GtkWidget>
    private var closed = false
    /// Called once, when the app's window is gone (not on `close`).
    public var onGone: () -> Void = {}

    /// The size its icon is drawn at.
    static let iconSize: Int32 = 24

    public init(inWindow window: UInt, title: String, icon: String?, showsTitle: Bool, showsIcon: Bool) {
        // Drawn in the desktop's theme, as the app around it is (the agent starts without it).
        GtkToolkit.useDesktopTheme()
        plug = gtk_plug_new(Window(window))
        let line = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6)!
        if showsIcon {
            gtk_container_add(
                cast(line), GtkIconImage.image(icon, size: Self.iconSize, fallback: "application-x-executable"))
        }
        if showsTitle {
            let label = gtk_label_new(title)!
            gtk_label_set_ellipsize(cast(label), PANGO_ELLIPSIZE_END)
            gtk_label_set_xalign(cast(label), 0)
            gtk_container_add(cast(line), label)
        }
        gtk_container_add(cast(plug), line)
        GtkSignals.onEvent(plug, "delete-event") { [unowned self] _ in
            guard !closed else { return true }
            close()
            onGone()
            return true
        }
        gtk_widget_show_all(plug)
        // An XEmbed embedder (GtkSocket) maps the plug; any other window of the app's would
        // leave it unmapped, so the plug maps itself.
        if let gdkWindow = gtk_widget_get_window(plug) { gdk_window_show(gdkWindow) }
    }

    deinit { close() }

    /// The plug's own X window id (a child of the app's window while embedded).
    public var windowID: UInt {
        guard !closed, let gdkWindow = gtk_widget_get_window(plug) else { return 0 }
        return UInt(gdk_x11_window_get_xid(gdkWindow))
    }

    public func close() {
        guard !closed else { return }
        closed = true
        gtk_widget_destroy(plug)
    }
}
