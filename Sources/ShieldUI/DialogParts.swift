import CGtk
import GtkBase

/// What the owner's dialogs (the guardian's, the access dialog) are made of, so that they look
/// and behave alike: a window above the shields, a column with the dialog's margins, the
/// question in big bold type, wrapped paragraphs, labelled fields and a row of buttons.
enum DialogParts {
    /// How wide paragraphs wrap, in characters.
    static let width: Int32 = 42

    /// A dialog window in the desktop's theme (the agent starts without it: its shields draw
    /// themselves), kept above the shields (which keep above too: it is mapped after them),
    /// centred, of its own size, with `instance` as its WM_CLASS instance.
    static func window(title: String, instance: String) -> UnsafeMutablePointer<GtkWidget> {
        GtkToolkit.useDesktopTheme()
        let window = gtk_window_new(GTK_WINDOW_TOPLEVEL)!
        let toplevel: UnsafeMutablePointer<GtkWindow> = cast(window)
        sw_window_set_wmclass(toplevel, instance, "Screenward")
        gtk_window_set_title(toplevel, title)
        gtk_window_set_keep_above(toplevel, 1)
        gtk_window_stick(toplevel)
        gtk_window_set_position(toplevel, GTK_WIN_POS_CENTER_ALWAYS)
        gtk_window_set_resizable(toplevel, 0)
        gtk_window_set_type_hint(toplevel, GDK_WINDOW_TYPE_HINT_DIALOG)
        return window
    }

    /// `rows`, one under the other, with the dialog's margins, as `window`'s content.
    static func fill(_ window: UnsafeMutablePointer<GtkWidget>, with rows: [UnsafeMutablePointer<GtkWidget>]) {
        let column = gtk_box_new(GTK_ORIENTATION_VERTICAL, 10)!
        for margin in [
            gtk_widget_set_margin_top, gtk_widget_set_margin_bottom, gtk_widget_set_margin_start,
            gtk_widget_set_margin_end,
        ] {
            margin(column, 20)
        }
        for row in rows { gtk_container_add(cast(column), row) }
        gtk_container_add(cast(window), column)
    }

    /// The question at the top.
    static func heading(_ text: String) -> UnsafeMutablePointer<GtkWidget> {
        let label = paragraph(text)
        if let escaped = g_markup_escape_text(text, -1) {
            gtk_label_set_markup(cast(label), "<big><b>\(String(cString: escaped))</b></big>")
            g_free(escaped)
        }
        return label
    }

    /// Wrapped text, aligned left; `dim` for what matters less.
    static func paragraph(_ text: String, dim: Bool = false) -> UnsafeMutablePointer<GtkWidget> {
        let label = gtk_label_new(text)!
        gtk_label_set_line_wrap(cast(label), 1)
        gtk_label_set_max_width_chars(cast(label), width)
        gtk_label_set_xalign(cast(label), 0)
        if dim { gtk_style_context_add_class(gtk_widget_get_style_context(label), "dim-label") }
        return label
    }

    /// A field's label, whose mnemonic (`_`) moves to it.
    static func fieldLabel(_ text: String, for field: UnsafeMutablePointer<GtkWidget>) -> UnsafeMutablePointer<
        GtkWidget
    > {
        let label = gtk_label_new_with_mnemonic(text)!
        gtk_label_set_xalign(cast(label), 0)
        gtk_label_set_mnemonic_widget(cast(label), field)
        gtk_widget_set_margin_top(label, 4)
        return label
    }

    /// The buttons, in a row at the right.
    static func buttons(_ buttons: [UnsafeMutablePointer<GtkWidget>]) -> UnsafeMutablePointer<GtkWidget> {
        let row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8)!
        gtk_widget_set_halign(row, GTK_ALIGN_END)
        for button in buttons { gtk_container_add(cast(row), button) }
        return row
    }
}
