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

    /// The theme GTK loads in a process that deferred the desktop's (see there): empty, a
    /// GResource compiled in (data/gtk-theme, scripts/generate-agent-theme.sh).
    static let agentThemeName = "Screenward-Agent"
    /// `GTK_THEME` as the person set it, once `deferDesktopTheme` has replaced it.
    nonisolated(unsafe) private static var personsTheme: String??
    nonisolated(unsafe) private static var desktopThemeLoaded = false

    /// Starts GTK with the agent's own, empty theme instead of the desktop's: for a program
    /// whose everyday windows draw themselves (the agent's shields: every color, size and
    /// font their style sheet's). The desktop theme (GTK's Adwaita) is otherwise parsed at
    /// gtk_init whether a window uses it or not: 1.7 MiB of heap and 2.6 MiB of libgtk's
    /// resource pages, 1.8 MiB of the agent's peak RSS with a shield shown (measured). A
    /// window that wants the desktop's look (the guardian's dialog) calls `useDesktopTheme()`.
    ///
    /// The theme is a resource, which GTK looks for before any theme folder: no file of the
    /// person's can stand in for it. Sets `GTK_THEME` (setenv): call it first thing, before
    /// any thread starts, as `disableGLUnlessChosen`. Without its resource (it cannot fail to
    /// load unless the compiled bytes are damaged), GTK loads the desktop theme as before.
    public static func deferDesktopTheme() {
        guard personsTheme == nil, initializedDisplay == nil else { return }
        let bytes = agentThemeResource.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
        defer { g_bytes_unref(bytes) }
        guard let resource = g_resource_new_from_data(bytes, nil) else { return }
        g_resources_register(resource)
        personsTheme = .some(ProcessInfo.processInfo.environment["GTK_THEME"])
        setenv("GTK_THEME", agentThemeName, 1)
    }

    /// Styles every window of the process with the desktop's theme from now on (the person's
    /// `GTK_THEME`, else their settings' theme and dark preference, else Adwaita), in a
    /// process that deferred it; otherwise GTK loaded it at start and this does nothing.
    /// Shields keep their look: their style sheet outranks any theme.
    public static func useDesktopTheme() {
        guard case .some(let persons) = personsTheme, !desktopThemeLoaded, let screen = gdk_screen_get_default()
        else { return }
        var name = "Adwaita"
        var variant: String?
        if let persons, !persons.isEmpty {
            let parts = persons.split(separator: ":", maxSplits: 1).map(String.init)
            name = parts[0]
            variant = parts.count > 1 ? parts[1] : nil
        } else if let settings = gtk_settings_get_default() {
            if let chosen = sw_settings_theme_name(settings) {
                if chosen.pointee != 0 { name = String(cString: chosen) }
                g_free(chosen)
            }
            if sw_settings_prefers_dark(settings) != 0 { variant = "dark" }
        }
        // GTK keeps the provider (and finds Adwaita for a name it cannot find, as it would at start).
        let provider = gtk_css_provider_get_named(name, variant)
        gtk_style_context_add_provider_for_screen(
            screen, OpaquePointer(provider), guint(GTK_STYLE_PROVIDER_PRIORITY_THEME))
        desktopThemeLoaded = true
    }

    /// Whether the desktop's theme styles this process's windows (GTK defines the theme's
    /// named colors, `theme_bg_color` among them, only then): false between
    /// `deferDesktopTheme` and `useDesktopTheme`. Asks GTK's own style machinery.
    public static var desktopThemeInEffect: Bool {
        guard let label = gtk_label_new(nil) else { return false }
        g_object_ref_sink(UnsafeMutableRawPointer(label))
        defer {
            gtk_widget_destroy(label)
            g_object_unref(UnsafeMutableRawPointer(label))
        }
        var color = GdkRGBA()
        return gtk_style_context_lookup_color(gtk_widget_get_style_context(label), "theme_bg_color", &color) != 0
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

    /// Starts GTK on the Wayland display `displayName` (a compositor's socket, `wayland-1`),
    /// once per process, as `initialize(displayName:)` does on X11.
    public static func initialize(waylandDisplay displayName: String) throws {
        guard initializedDisplay == nil else { return }
        disableGLUnlessChosen()
        gdk_set_allowed_backends("wayland")
        // GDK's Wayland backend reads the socket's name from the environment only.
        setenv("WAYLAND_DISPLAY", displayName, 1)
        var argc: Int32 = 0
        guard gtk_init_check(&argc, nil) != 0, gdk_display_get_default() != nil else {
            throw GtkToolkitError.noDisplay(displayName)
        }
        initializedDisplay = displayName
    }

    /// Whether the desktop prefers a dark look (GtkSettings
    /// gtk-application-prefer-dark-theme, or a theme name ending in "-dark"); decides
    /// the automatic blur styles.
    public static var prefersDark: Bool {
        // GTK_THEME=Adwaita:dark overrides the settings without showing in them (the
        // person's, when the agent's own theme replaced it).
        let theme = personsTheme ?? ProcessInfo.processInfo.environment["GTK_THEME"]
        if let forced = theme?.lowercased(),
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
