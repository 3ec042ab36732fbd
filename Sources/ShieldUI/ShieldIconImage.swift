import CGtk
import ManagedSettingsUI

/// Loads a shield's icon at the size the shield shows it.
enum ShieldIconImage {
    static let size: Int32 = 72
    /// What a shield shows when its icon cannot be found.
    static let fallbackName = "dialog-warning"

    /// The icon as a pixbuf the caller owns (g_object_unref), or nil when neither it nor
    /// the fallback can be loaded (the shield then has no icon). Symbolic icons are
    /// drawn in `symbolicColor`.
    static func load(_ icon: ShieldIcon, symbolicColor: ShieldColor) -> OpaquePointer? {
        switch icon {
        case .file(let path):
            var error: UnsafeMutablePointer<GError>?
            if let pixbuf = gdk_pixbuf_new_from_file_at_scale(path, size, size, 1, &error) { return pixbuf }
            if let error { g_error_free(error) }
        case .themed(let name):
            if let pixbuf = loadThemed(name, symbolicColor: symbolicColor) { return pixbuf }
        }
        return loadThemed(fallbackName, symbolicColor: symbolicColor)
    }

    private static func loadThemed(_ name: String, symbolicColor: ShieldColor) -> OpaquePointer? {
        guard let theme = gtk_icon_theme_get_default() else { return nil }
        func lookup(_ name: String) -> OpaquePointer? {
            gtk_icon_theme_lookup_icon(theme, name, size, GTK_ICON_LOOKUP_FORCE_SIZE)
        }
        func isSharp(_ info: OpaquePointer) -> Bool {
            let scalable = gtk_icon_info_get_filename(info).map { String(cString: $0).hasSuffix(".svg") } ?? false
            return scalable || gtk_icon_info_get_base_size(info) >= size - 8
        }
        // Themes often have an icon only as a small bitmap (Adwaita's legacy 48 px
        // "appointment-soon") and sharply as a symbolic SVG: a blown-up bitmap looks
        // worse than the symbolic drawing in the text color.
        var chosen = lookup(name)
        if let info = chosen, !isSharp(info), !name.hasSuffix("-symbolic"), let symbolic = lookup(name + "-symbolic") {
            g_object_unref(UnsafeMutableRawPointer(info))
            chosen = symbolic
        } else if chosen == nil, !name.hasSuffix("-symbolic") {
            chosen = lookup(name + "-symbolic")
        }
        guard let info = chosen else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(info)) }
        var error: UnsafeMutablePointer<GError>?
        defer { if let error { g_error_free(error) } }
        if gtk_icon_info_is_symbolic(info) != 0 {
            var color = GdkRGBA(
                red: symbolicColor.red, green: symbolicColor.green, blue: symbolicColor.blue, alpha: symbolicColor.alpha
            )
            return gtk_icon_info_load_symbolic(info, &color, nil, nil, nil, nil, &error)
        }
        return gtk_icon_info_load_icon(info, &error)
    }
}
