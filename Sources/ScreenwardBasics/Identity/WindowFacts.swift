/// What the display's backend read from a window, already sanitised: strings are valid UTF-8
/// (invalid bytes replaced) and bounded in length. An X window has WM_CLASS and the toolkit's
/// hints; a Wayland toplevel has its `app_id`; either may have the process that made it.
///
/// These are the facts identity resolution works from; when a window has a
/// WM_TRANSIENT_FOR parent, the session module reports the facts of the top of
/// that chain, since a dialog belongs to the application of its parent.
public struct WindowFacts: Hashable, Sendable {
    /// The X window id, or the number a Wayland backend gave the toplevel (for logs only).
    public var windowID: UInt
    /// WM_CLASS instance (`res_name`) and class (`res_class`).
    public var wmInstance: String?
    public var wmClass: String?
    /// `_GTK_APPLICATION_ID` (a GApplication id such as `org.gnome.TextEditor`).
    public var gtkApplicationID: String?
    /// `_KDE_NET_WM_DESKTOP_FILE` (a desktop file name without `.desktop`).
    public var kdeDesktopFile: String?
    /// A Wayland toplevel's `app_id` (`xdg_toplevel.set_app_id`): by convention its desktop
    /// entry's name without `.desktop`; like WM_CLASS, the client's own choice.
    public var appID: String?
    /// `_NET_WM_NAME`, else `WM_NAME`; a Wayland toplevel's title.
    public var title: String?
    /// The owning process: from the X-Resource extension when available, else `_NET_WM_PID`.
    public var pid: Int32?

    public init(
        windowID: UInt, wmInstance: String? = nil, wmClass: String? = nil,
        gtkApplicationID: String? = nil, kdeDesktopFile: String? = nil, appID: String? = nil,
        title: String? = nil, pid: Int32? = nil
    ) {
        self.windowID = windowID
        self.wmInstance = wmInstance
        self.wmClass = wmClass
        self.gtkApplicationID = gtkApplicationID
        self.kdeDesktopFile = kdeDesktopFile
        self.appID = appID
        self.title = title
        self.pid = pid
    }
}
