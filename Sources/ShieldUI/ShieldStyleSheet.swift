import CGtk
import GtkBase
import ManagedSettingsUI
import ScreenwardCore

/// One shield window's style sheet on the screen: its look's colors as CSS scoped to the
/// window's widget name (`ShieldStyle`), loaded again only when they change (loading restyles
/// every widget of the screen).
final class ShieldStyleSheet {
    private let style: ShieldStyle
    private let provider: UnsafeMutablePointer<GtkCssProvider>
    private var loaded: String?
    private var isRemoved = false

    /// A sheet for the window whose widget name is `scope`, added to the screen.
    init(scope: String) {
        style = ShieldStyle(scope: scope)
        provider = gtk_css_provider_new()
        gtk_style_context_add_provider_for_screen(
            gdk_screen_get_default(), OpaquePointer(provider), guint(GTK_STYLE_PROVIDER_PRIORITY_APPLICATION))
    }

    var scope: String { style.scope }

    func load(for shield: ResolvedShield) {
        let css = style.css(for: shield)
        guard css != loaded, !isRemoved else { return }
        gtk_css_provider_load_from_data(provider, css, -1, nil)
        loaded = css
    }

    /// Takes the sheet off the screen, with its window.
    func remove() {
        guard !isRemoved else { return }
        isRemoved = true
        gtk_style_context_remove_provider_for_screen(gdk_screen_get_default(), OpaquePointer(provider))
        g_object_unref(UnsafeMutableRawPointer(provider))
    }
}
