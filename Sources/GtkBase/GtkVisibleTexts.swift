import CGtk

/// Every text a person can read in a GTK window: its title, its labels (buttons' and check
/// boxes' labels are labels too) and its entries' placeholders. The programs write
/// them to their traces, so that a test in a pseudo-locale finds any that did not go through
/// the translations. What a person typed into an entry is theirs, not the program's: only the
/// entry's placeholder counts.
public enum GtkVisibleTexts {
    public static func of(window: UnsafeMutablePointer<GtkWidget>) -> [String] {
        var texts: [String] = []
        collect(window, into: &texts)
        return texts.filter { !$0.isEmpty }
    }

    private static func isA(_ widget: UnsafeMutablePointer<GtkWidget>, _ type: GType) -> Bool {
        g_type_check_instance_is_a(UnsafeMutableRawPointer(widget).assumingMemoryBound(to: GTypeInstance.self), type)
            != 0
    }

    private static func collect(_ widget: UnsafeMutablePointer<GtkWidget>, into texts: inout [String]) {
        guard gtk_widget_get_visible(widget) != 0 else { return }
        if isA(widget, gtk_window_get_type()),
            let title = gtk_window_get_title(UnsafeMutableRawPointer(widget).assumingMemoryBound(to: GtkWindow.self))
        {
            texts.append(String(cString: title))
        }
        if isA(widget, gtk_label_get_type()),
            let text = gtk_label_get_text(UnsafeMutableRawPointer(widget).assumingMemoryBound(to: GtkLabel.self))
        {
            texts.append(String(cString: text))
        }
        if isA(widget, gtk_entry_get_type()) {
            let entry = UnsafeMutableRawPointer(widget).assumingMemoryBound(to: GtkEntry.self)
            if let placeholder = gtk_entry_get_placeholder_text(entry) { texts.append(String(cString: placeholder)) }
        }
        guard isA(widget, gtk_container_get_type()) else { return }
        let children = gtk_container_get_children(
            UnsafeMutableRawPointer(widget).assumingMemoryBound(to: GtkContainer.self))
        var node = children
        while let current = node {
            if let child = current.pointee.data { collect(child.assumingMemoryBound(to: GtkWidget.self), into: &texts) }
            node = current.pointee.next
        }
        g_list_free(children)
    }
}
