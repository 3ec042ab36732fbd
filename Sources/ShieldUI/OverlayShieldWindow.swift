import CGtk
import CGtkLayerShell
import GtkBase
import ManagedSettingsUI
import ScreenwardCore

/// The shield on a wlroots compositor: a layer-shell surface in the overlay layer, above every
/// window, panel and full-screen client, over the whole output, with the keyboard to itself
/// while shown. Wayland lets no client place a window over another's, so the shield covers
/// the output rather than the shielded window; no client can move, lower or cover it (the
/// compositor keeps the overlay layer above), and closing it is not theirs to do. Use it on the
/// GTK main loop's thread only.
public final class OverlayShieldWindow {
    private let window: UnsafeMutablePointer<GtkWidget>
    private let canvas: UnsafeMutablePointer<GtkWidget>
    private let content: ShieldContent
    private let sheet: ShieldStyleSheet
    private var shownPending = false
    public private(set) var shield: ResolvedShield?
    public private(set) var isVisible = false
    /// Called once each time the overlay has been mapped and drawn after `show`.
    public var onShown: (() -> Void)?

    /// Whether the compositor offers the layer shell (wlroots compositors and KWin do; GNOME
    /// Shell does not).
    public static var isSupported: Bool { gtk_layer_is_supported() != 0 }

    public init(onAction: @escaping (ShieldAction) -> Void) {
        window = gtk_window_new(GTK_WINDOW_TOPLEVEL)
        sheet = ShieldStyleSheet(scope: "screenward-overlay-shield")
        gtk_widget_set_name(window, sheet.scope)
        let toplevel: UnsafeMutablePointer<GtkWindow> = cast(window)
        gtk_layer_init_for_window(toplevel)
        gtk_layer_set_namespace(toplevel, "screenward-shield")
        gtk_layer_set_layer(toplevel, GTK_LAYER_SHELL_LAYER_OVERLAY)
        for edge in [
            GTK_LAYER_SHELL_EDGE_LEFT, GTK_LAYER_SHELL_EDGE_RIGHT, GTK_LAYER_SHELL_EDGE_TOP,
            GTK_LAYER_SHELL_EDGE_BOTTOM,
        ] {
            gtk_layer_set_anchor(toplevel, edge, 1)
        }
        // Over panels too, not beside them.
        gtk_layer_set_exclusive_zone(toplevel, -1)
        gtk_layer_set_keyboard_mode(toplevel, GTK_LAYER_SHELL_KEYBOARD_MODE_EXCLUSIVE)

        canvas = gtk_drawing_area_new()
        content = ShieldContent(onAction: onAction)
        let overlay = gtk_overlay_new()!
        gtk_container_add(cast(overlay), canvas)
        gtk_overlay_add_overlay(cast(overlay), content.column)
        gtk_container_add(cast(window), overlay)
        gtk_widget_show_all(overlay)

        GtkSignals.onDraw(canvas) { [unowned self] cairo in paintBackground(cairo) }
        // Escape dismisses nothing; Enter and space press the focused button.
        GtkSignals.onEvent(window, "key-press-event") { [unowned self] event in
            switch Int32(event.pointee.key.keyval) {
            case GDK_KEY_Escape: return true
            case GDK_KEY_Return, GDK_KEY_KP_Enter, GDK_KEY_ISO_Enter, GDK_KEY_space, GDK_KEY_KP_Space:
                return content.press(gtk_window_get_focus(cast(window)))
            default: return false
            }
        }
        GtkSignals.onEvent(window, "delete-event") { _ in true }
        GtkSignals.onEvent(window, "map-event") { [unowned self] _ in
            shownPending = true
            gtk_widget_queue_draw(canvas)
            return false
        }
    }

    /// What the overlay covers: the output it is on (the compositor's choice: the focused one),
    /// in the compositor's layout. Before it is first shown, the first output.
    public var frame: ScreenRect {
        guard let display = gdk_display_get_default() else { return ScreenRect(x: 0, y: 0, width: 0, height: 0) }
        let monitor =
            gtk_widget_get_window(window).flatMap { gdk_display_get_monitor_at_window(display, $0) }
            ?? gdk_display_get_monitor(display, 0)
        guard let monitor else { return ScreenRect(x: 0, y: 0, width: 0, height: 0) }
        var area = GdkRectangle()
        gdk_monitor_get_geometry(monitor, &area)
        return ScreenRect(x: Int(area.x), y: Int(area.y), width: Int(area.width), height: Int(area.height))
    }

    /// Every text the shield shows, as a person reads them.
    public var visibleTexts: [String] { GtkVisibleTexts.of(window: window) }

    /// Shows `shield` over the output, with the keyboard.
    public func show(_ shield: ResolvedShield) {
        apply(shield)
        isVisible = true
        gtk_widget_show(window)
        gtk_widget_grab_focus(content.primaryButton)
        gtk_widget_grab_default(content.primaryButton)
        flush()
    }

    /// Same overlay, new content (a data source's look, an action handler's `.defer`).
    public func redraw(_ shield: ResolvedShield) {
        apply(shield)
        gtk_widget_grab_focus(content.primaryButton)
    }

    public func hide() {
        isVisible = false
        gtk_widget_hide(window)
        flush()
    }

    private func flush() {
        if let display = gdk_display_get_default() { gdk_display_flush(display) }
    }

    private func apply(_ shield: ResolvedShield) {
        self.shield = shield
        gtk_window_set_title(cast(window), shield.windowTitle)
        sheet.load(for: shield)
        content.update(shield)
        gtk_widget_queue_draw(canvas)
    }

    /// The blur style's tint, opaque (there is no capture to blur: Wayland shows no client
    /// another's pixels), then the background color.
    private func paintBackground(_ cairo: OpaquePointer) {
        guard let shield else { return }
        let width = Double(gtk_widget_get_allocated_width(canvas))
        let height = Double(gtk_widget_get_allocated_height(canvas))
        let tint = shield.backgroundBlurStyle.tint(dark: GtkToolkit.prefersDark)
        for color in [tint.withAlphaComponent(1), tint, shield.backgroundColor] {
            cairo_set_source_rgba(cairo, color.red, color.green, color.blue, color.alpha)
            cairo_rectangle(cairo, 0, 0, width, height)
            cairo_fill(cairo)
        }
        if shownPending {
            shownPending = false
            ShieldIdle.once { [weak self] in self?.onShown?() }
        }
    }
}
