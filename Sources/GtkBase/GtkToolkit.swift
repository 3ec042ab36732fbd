import CGtk
import Foundation

public enum GtkToolkitError: Error, CustomStringConvertible, Equatable {
    case noDisplay(String)

    public var description: String {
        switch self {
        case .noDisplay(let name):
            """
            cannot open the X display \(name): is an X server running there, and may this \
            user connect (XAUTHORITY)?
            """
        }
    }
}

/// GTK for every window Screenward draws (the shields, the guardian's dialog, the tray's
/// menu, the report and the picker): started once per process, on the X display of the session.
public enum GtkToolkit {
    /// Set once GTK runs; GTK cannot be started twice, nor on a second display.
    nonisolated(unsafe) private static var initializedDisplay: String?

    /// Sets `GDK_GL=disable` in the process environment, unless the person set
    /// `GDK_GL` themself. Shields draw with cairo and never use GL, but on a fresh X
    /// server GDK's GLX visual probe in gtk_init loads Mesa's software driver and its
    /// 44 MB libLLVM: the agent's peak RSS was 112 MB with it, 58 MB without
    /// (measured). GDK reads the variable once, in gtk_init. setenv is not safe while
    /// other threads read the environment: a program with threads calls this first
    /// thing, before it starts them; `initialize` calls it too (then a no-op).
    public static func disableGLUnlessChosen() {
        setenv("GDK_GL", "disable", 0)  // 0: a value already there stays
    }

    /// gtk_init_check for `displayName` (nil: $DISPLAY). Throws GtkToolkitError with a
    /// clear message when there is no display. Idempotent.
    public static func initialize(displayName: String?) throws {
        guard initializedDisplay == nil else { return }
        disableGLUnlessChosen()
        let name = displayName ?? ProcessInfo.processInfo.environment["DISPLAY"] ?? ""
        guard !name.isEmpty else { throw GtkToolkitError.noDisplay("(DISPLAY is not set)") }
        // GTK 3 is X11 only here: without this a Wayland session would get a Wayland shield.
        gdk_set_allowed_backends("x11")
        // gtk_init_check reads the display from the command line it is given.
        let arguments = ["screenward-shield", "--display", name]
        var argc = Int32(arguments.count)
        let duplicates = arguments.map { strdup($0) }
        defer { duplicates.forEach { free($0) } }
        var pointers: [UnsafeMutablePointer<CChar>?] = duplicates + [nil]
        let started = pointers.withUnsafeMutableBufferPointer { buffer -> Bool in
            var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = buffer.baseAddress
            return gtk_init_check(&argc, &argv) != 0
        }
        guard started, gdk_display_get_default() != nil else { throw GtkToolkitError.noDisplay(name) }
        initializedDisplay = name
    }

    /// Whether the desktop prefers a dark look (GtkSettings
    /// gtk-application-prefer-dark-theme, or a theme name ending in "-dark"); decides
    /// the automatic blur styles.
    public static var prefersDark: Bool {
        // GTK_THEME=Adwaita:dark overrides the settings without showing in them.
        if let forced = ProcessInfo.processInfo.environment["GTK_THEME"]?.lowercased(),
            forced.hasSuffix(":dark") || forced.hasSuffix("-dark")
        {
            return true
        }
        guard let settings = gtk_settings_get_default() else { return false }
        if sw_settings_prefers_dark(settings) != 0 { return true }
        guard let theme = sw_settings_theme_name(settings) else { return false }
        defer { g_free(theme) }
        return String(cString: theme).lowercased().hasSuffix("-dark")
    }
}
