import CGtk
import GtkBase
import ManagedSettingsUI
import ScreenwardCore

/// The centered column of a shield: icon, title, subtitle, primary button and the
/// optional secondary button.
final class ShieldContent {
    let column: UnsafeMutablePointer<GtkWidget>
    private let icon: UnsafeMutablePointer<GtkWidget>
    private let title: UnsafeMutablePointer<GtkWidget>
    private let subtitle: UnsafeMutablePointer<GtkWidget>
    let primaryButton: UnsafeMutablePointer<GtkWidget>
    private let secondaryButton: UnsafeMutablePointer<GtkWidget>
    /// What the icon image shows now, so a redraw with the same icon does not reload it.
    private var shownIcon: (icon: ShieldIcon, color: ShieldColor)?
    /// The look the widgets show.
    private var shown: ResolvedShield?

    init(onAction: @escaping (ShieldAction) -> Void) {
        column = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12)
        gtk_widget_set_halign(column, GTK_ALIGN_CENTER)
        gtk_widget_set_valign(column, GTK_ALIGN_CENTER)
        gtk_widget_set_margin_start(column, 24)
        gtk_widget_set_margin_end(column, 24)

        icon = gtk_image_new()
        gtk_widget_set_margin_bottom(icon, 8)
        title = Self.wrappingLabel(name: "shield-title", maxCharacters: 32)
        subtitle = Self.wrappingLabel(name: "shield-subtitle", maxCharacters: 40)
        primaryButton = gtk_button_new_with_label("")
        gtk_widget_set_name(primaryButton, "shield-primary")
        gtk_widget_set_halign(primaryButton, GTK_ALIGN_CENTER)
        gtk_widget_set_margin_top(primaryButton, 20)
        gtk_widget_set_can_default(primaryButton, 1)
        secondaryButton = gtk_button_new_with_label("")
        gtk_widget_set_name(secondaryButton, "shield-secondary")
        gtk_widget_set_halign(secondaryButton, GTK_ALIGN_CENTER)
        gtk_button_set_relief(Self.button(secondaryButton), GTK_RELIEF_NONE)
        // Shown only when the shield has a secondary button, whatever show_all says.
        gtk_widget_set_no_show_all(secondaryButton, 1)

        for widget in [icon, title, subtitle, primaryButton, secondaryButton] {
            gtk_box_pack_start(Self.box(column), widget, 0, 0, 0)
        }
        GtkSignals.onNotification(primaryButton, "clicked") { onAction(.primaryButtonPressed) }
        GtkSignals.onNotification(secondaryButton, "clicked") { onAction(.secondaryButtonPressed) }
        self.onAction = onAction
    }

    private let onAction: (ShieldAction) -> Void

    /// Presses the button `focused` is, as Enter or space on it would: GTK's own activation
    /// waits for a keyboard grab that a layer surface on Wayland does not get. False when
    /// `focused` is no button of the shield.
    func press(_ focused: UnsafeMutablePointer<GtkWidget>?) -> Bool {
        switch focused {
        case primaryButton: onAction(.primaryButtonPressed)
        case secondaryButton where gtk_widget_get_visible(secondaryButton) != 0: onAction(.secondaryButtonPressed)
        default: return false
        }
        return true
    }

    /// Shows `shield`'s icon, texts and buttons (their colors come from the CSS).
    func update(_ shield: ResolvedShield) {
        // The same look again (a spare shown for the same app, a redraw that changed nothing).
        guard shield != shown else { return }
        shown = shield
        if shownIcon?.icon != shield.icon || shownIcon?.color != shield.title.color {
            shownIcon = (shield.icon, shield.title.color)
            if let pixbuf = ShieldIconImage.load(shield.icon, symbolicColor: shield.title.color) {
                gtk_image_set_from_pixbuf(Self.image(icon), pixbuf)
                g_object_unref(UnsafeMutableRawPointer(pixbuf))
                gtk_widget_show(icon)
            } else {
                gtk_image_clear(Self.image(icon))
                gtk_widget_hide(icon)
            }
        }
        gtk_label_set_text(Self.label(title), shield.title.text)
        gtk_label_set_text(Self.label(subtitle), shield.subtitle.text)
        gtk_widget_set_visible(subtitle, shield.subtitle.text.isEmpty ? 0 : 1)
        gtk_button_set_label(Self.button(primaryButton), shield.primaryButtonLabel.text)
        if let secondary = shield.secondaryButtonLabel {
            gtk_button_set_label(Self.button(secondaryButton), secondary.text)
            gtk_widget_show(secondaryButton)
        } else {
            gtk_widget_hide(secondaryButton)
        }
    }

    private static func wrappingLabel(name: String, maxCharacters: Int32) -> UnsafeMutablePointer<GtkWidget> {
        let widget = gtk_label_new(nil)!
        gtk_widget_set_name(widget, name)
        let label = label(widget)
        gtk_label_set_line_wrap(label, 1)
        gtk_label_set_line_wrap_mode(label, PANGO_WRAP_WORD_CHAR)
        gtk_label_set_justify(label, GTK_JUSTIFY_CENTER)
        gtk_label_set_max_width_chars(label, maxCharacters)
        gtk_label_set_xalign(label, 0.5)
        return widget
    }

    // GTK's class casts are macros; these are the plain pointer casts they stand for.
    private static func label(_ widget: UnsafeMutablePointer<GtkWidget>) -> UnsafeMutablePointer<GtkLabel> {
        cast(widget)
    }
    private static func button(_ widget: UnsafeMutablePointer<GtkWidget>) -> UnsafeMutablePointer<GtkButton> {
        cast(widget)
    }
    private static func image(_ widget: UnsafeMutablePointer<GtkWidget>) -> UnsafeMutablePointer<GtkImage> {
        cast(widget)
    }
    private static func box(_ widget: UnsafeMutablePointer<GtkWidget>) -> UnsafeMutablePointer<GtkBox> { cast(widget) }
}
