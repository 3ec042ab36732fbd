import CGtk
import GtkBase
import ManagedSettings
import ManagedSettingsUI
import ScreenwardCore

/// The window that covers a shielded application: a managed, undecorated GTK toplevel
/// kept above, off the taskbar and pager, drawn from a resolved shield over a blurred
/// capture of what it covers. Use it on the GTK main loop's thread only.
public final class ShieldWindow {
    private let window: UnsafeMutablePointer<GtkWidget>
    /// The bottom layer: backdrop, tint and background color (cairo).
    private let canvas: UnsafeMutablePointer<GtkWidget>
    private let content: ShieldContent
    private let sheet: ShieldStyleSheet
    private var backdrop: ShieldBackdrop?
    private var frame: ScreenRect?
    private var isDestroyed = false
    private var shownPending = false

    public private(set) var shield: ResolvedShield?
    /// Called once each time the window has been mapped and drawn after `show`.
    public var onShown: (() -> Void)?

    nonisolated(unsafe) private static var windowCount = 0

    /// Whether the window waits managed but minimized (see `init`).
    private var standsBy: Bool
    private var isShown = false

    /// Creates and realizes the window, unmapped, so that showing it later costs only a
    /// map. `onAction` gets button presses.
    ///
    /// With `standingBy`, the window is also mapped minimized at once: the window
    /// manager takes it in now (openbox needs 10–20 ms to manage a new window), and
    /// showing it is a restore, a move and an activation. Hidden, it is minimized again.
    public init(standingBy: Bool = false, onAction: @escaping (ShieldAction) -> Void) {
        standsBy = standingBy
        Self.windowCount += 1
        sheet = ShieldStyleSheet(scope: "screenward-shield-\(Self.windowCount)")
        window = gtk_window_new(GTK_WINDOW_TOPLEVEL)
        gtk_widget_set_name(window, sheet.scope)
        let toplevel: UnsafeMutablePointer<GtkWindow> = cast(window)
        // Before realize: WM_CLASS and the hints are read by the window manager at map.
        sw_window_set_wmclass(toplevel, "shield", "Screenward")
        gtk_window_set_decorated(toplevel, 0)
        gtk_window_set_skip_taskbar_hint(toplevel, 1)
        gtk_window_set_skip_pager_hint(toplevel, 1)
        gtk_window_set_keep_above(toplevel, 1)
        gtk_window_stick(toplevel)
        gtk_window_set_type_hint(toplevel, GDK_WINDOW_TYPE_HINT_NORMAL)
        // Mapped without taking the focus (_NET_WM_USER_TIME 0): a shield over a window in
        // the background must not pull the person away from the one they use. The agent
        // activates a shield itself when its window had the focus.
        gtk_window_set_focus_on_map(toplevel, 0)
        // The position given is where the inside of the window goes, whatever frame
        // the window manager might add.
        gtk_window_set_gravity(toplevel, GDK_GRAVITY_STATIC)

        canvas = gtk_drawing_area_new()
        content = ShieldContent(onAction: onAction)
        // An overlay's size is its main child's (the canvas, which asks for nothing):
        // the column never stops the window from taking a frame smaller than itself.
        let overlay = gtk_overlay_new()!
        gtk_container_add(cast(overlay), canvas)
        gtk_overlay_add_overlay(cast(overlay), content.column)
        gtk_container_add(cast(window), overlay)
        gtk_widget_show_all(overlay)

        GtkSignals.onDraw(canvas) { [unowned self] cairo in self.paintBackground(cairo) }
        // A shield cannot be closed: not by the window manager's close (WM_DELETE_WINDOW)…
        GtkSignals.onEvent(window, "delete-event") { _ in true }
        // …nor dismissed with Escape. Enter and space still activate the focused button.
        GtkSignals.onEvent(window, "key-press-event") { event in
            event.pointee.key.keyval == guint(GDK_KEY_Escape)
        }
        // Whenever the shield gets the keyboard, a button has it (Enter presses it), even
        // if GTK lost track of the focus while the window was minimized.
        GtkSignals.onEvent(window, "focus-in-event") { [unowned self] _ in
            let focused = gtk_window_get_focus(cast(self.window))
            if focused == nil || gtk_widget_get_visible(focused) == 0 { self.focusPrimaryButton() }
            return false
        }
        GtkSignals.onEvent(window, "map-event") { [unowned self] _ in
            self.shownPending = true
            gtk_widget_queue_draw(self.canvas)
            return false
        }
        gtk_widget_realize(window)
        Self.prepareCapturesOnce()
        if standingBy {
            gtk_window_iconify(toplevel)
            gtk_widget_show(window)
            flush()
        }
    }

    deinit { destroy() }

    nonisolated(unsafe) private static var capturesPrepared = false

    /// The first capture of a process pays for cairo's set-up with the X server (its
    /// RENDER formats, shared memory for images); paid here, with the first window, it is
    /// not on the way to the first shield.
    private static func prepareCapturesOnce() {
        guard !capturesPrepared else { return }
        capturesPrepared = true
        _ = ShieldBackdrop.capture(ScreenRect(x: 0, y: 0, width: 128, height: 128), blurRadius: 24)
    }

    /// The toplevel's X window id.
    public var windowID: UInt {
        guard !isDestroyed, let gdkWindow = gtk_widget_get_window(window) else { return 0 }
        return UInt(gdk_x11_window_get_xid(gdkWindow))
    }

    /// Shown (between `show` and `hide`); a standing-by window is mapped minimized meanwhile.
    public var isVisible: Bool { !isDestroyed && isShown }

    /// Every text the shield shows (its title, labels and buttons), as a person reads them.
    public var visibleTexts: [String] { isDestroyed ? [] : GtkVisibleTexts.of(window: window) }

    /// Captures what lies under `frame` right now as the backdrop, blurs it, places the
    /// window exactly at `frame`, maps it, and lays `shield` out in it. Does not take the
    /// focus: `mapped` runs as soon as the map request is sent, before the look is laid
    /// out, so that what the caller asks of the window manager (an activation) is on its
    /// way while the look's style and texts are worked out; GTK draws the window at its
    /// next frame, with the look, either way. A shield already visible keeps its backdrop
    /// (a capture now would show the shield itself).
    public func show(_ shield: ResolvedShield, covering frame: ScreenRect, mapped: () -> Void = {}) {
        guard !isDestroyed else { return }
        if !isVisible || backdrop == nil {
            backdrop = ShieldBackdrop.capture(frame, blurRadius: shield.backgroundBlurStyle.blurRadius)
        }
        place(frame)
        isShown = true
        if standsBy {
            gtk_window_deiconify(cast(window))
        } else {
            gtk_widget_show(window)
        }
        flush()
        mapped()
        apply(shield)
        focusPrimaryButton()
    }

    /// Same window, new content (used when an action handler answers `.defer`); keeps the backdrop.
    public func redraw(_ shield: ResolvedShield) {
        guard !isDestroyed else { return }
        apply(shield)
        // The buttons may have changed (a secondary one gone): Enter means the primary again.
        focusPrimaryButton()
    }

    private func focusPrimaryButton() {
        gtk_widget_grab_focus(content.primaryButton)
        gtk_widget_grab_default(content.primaryButton)
    }

    /// Moves and resizes to follow the covered window; the backdrop is scaled to the new size.
    public func cover(_ frame: ScreenRect) {
        guard !isDestroyed, frame != self.frame else { return }
        place(frame)
        gtk_widget_queue_draw(canvas)
        flush()
    }

    /// Stops standing by: without a window manager, nothing minimizes a window, so a hidden
    /// shield must be unmapped (a standing-by one not shown is unmapped now).
    public func stopStandingBy() {
        guard standsBy, !isDestroyed else { return }
        standsBy = false
        if !isShown {
            gtk_widget_hide(window)
            flush()
        }
    }

    /// Unmaps; the window can be shown again.
    public func hide() {
        guard !isDestroyed else { return }
        isShown = false
        if standsBy {
            gtk_window_iconify(cast(window))
        } else {
            gtk_widget_hide(window)
        }
        flush()
    }

    /// Sends the requests now: GDK would wait for its next frame (up to 16 ms), and a
    /// shield is on a budget of one frame from the covered window's activation.
    private func flush() {
        if let display = gdk_display_get_default() { gdk_display_flush(display) }
    }

    public func destroy() {
        guard !isDestroyed else { return }
        isDestroyed = true
        sheet.remove()
        gtk_widget_destroy(window)
        backdrop = nil
    }

    /// Asks the window manager to activate (raise and focus) the shield with an EWMH
    /// `_NET_ACTIVE_WINDOW` request from a pager (source 2).
    public func requestActivation() {
        guard !isDestroyed, let display = gdk_display_get_default() else { return }
        sw_request_activation(display, Window(windowID))
    }

    // MARK: Drawing

    private func apply(_ shield: ResolvedShield) {
        self.shield = shield
        gtk_window_set_title(cast(window), shield.windowTitle)
        sheet.load(for: shield)
        content.update(shield)
        gtk_widget_queue_draw(canvas)
    }

    private func place(_ frame: ScreenRect) {
        self.frame = frame
        let toplevel: UnsafeMutablePointer<GtkWindow> = cast(window)
        let width = Int32(max(frame.width, 1))
        let height = Int32(max(frame.height, 1))
        // Before the first map the default size is what the window asks for; after, a resize.
        gtk_window_set_default_size(toplevel, width, height)
        gtk_window_move(toplevel, Int32(frame.x), Int32(frame.y))
        gtk_window_resize(toplevel, width, height)
        // GTK would send the new geometry at its next frame (up to 16 ms away); a window
        // that is mapped (a minimized one standing by) is configured now, with the map.
        if gtk_widget_get_mapped(window) != 0 { gtk_container_check_resize(cast(window)) }
    }

    /// Bottom to top: the blurred backdrop, the blur style's tint, the background color.
    private func paintBackground(_ cairo: OpaquePointer) {
        guard let shield else { return }
        let width = Double(gtk_widget_get_allocated_width(canvas))
        let height = Double(gtk_widget_get_allocated_height(canvas))
        let tint = shield.backgroundBlurStyle.tint(dark: GtkToolkit.prefersDark)
        if let backdrop {
            backdrop.draw(on: cairo, width: width, height: height)
        } else {
            fill(cairo, tint.withAlphaComponent(1), width: width, height: height)
        }
        fill(cairo, tint, width: width, height: height)
        fill(cairo, shield.backgroundColor, width: width, height: height)
        if shownPending {
            shownPending = false
            // After this frame reaches the screen: GDK paints at a higher priority than idle.
            ShieldIdle.once { [weak self] in self?.onShown?() }
        }
    }

    private func fill(_ cairo: OpaquePointer, _ color: ShieldColor, width: Double, height: Double) {
        cairo_set_source_rgba(cairo, color.red, color.green, color.blue, color.alpha)
        cairo_rectangle(cairo, 0, 0, width, height)
        cairo_fill(cairo)
    }
}

/// Runs a closure once when the GLib main loop is idle.
enum ShieldIdle {
    private final class Box {
        let action: () -> Void
        init(_ action: @escaping () -> Void) { self.action = action }
    }

    static func once(_ action: @escaping () -> Void) {
        let box = Unmanaged.passRetained(Box(action)).toOpaque()
        g_idle_add_full(
            G_PRIORITY_DEFAULT_IDLE,
            { data in
                Unmanaged<Box>.fromOpaque(data!).takeRetainedValue().action()
                return 0
            }, box, nil)
    }
}
