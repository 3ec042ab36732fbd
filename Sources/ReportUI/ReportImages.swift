import CGtk
import Foundation

/// The pictures a report shows: applications' icons from the icon theme, and PNGs an
/// extension drew, decoded once and kept for every redraw.
final class ReportImages {
    private var icons: [String: OpaquePointer?] = [:]
    private var pictures: [Data: OpaquePointer?] = [:]
    private let theme: UnsafeMutablePointer<GtkIconTheme>?
    private let ownsTheme: Bool

    /// With a display, the desktop's icon theme; without one, the default theme's
    /// folders as GTK finds them.
    init(hasDisplay: Bool) {
        if hasDisplay, let theme = gtk_icon_theme_get_default() {
            self.theme = theme
            ownsTheme = false
        } else {
            theme = gtk_icon_theme_new()
            ownsTheme = theme != nil
        }
    }

    deinit {
        for pixbuf in icons.values.compactMap({ $0 }) + pictures.values.compactMap({ $0 }) {
            g_object_unref(UnsafeMutableRawPointer(pixbuf))
        }
        if ownsTheme, let theme { g_object_unref(UnsafeMutableRawPointer(theme)) }
    }

    /// The named icon at `size` pixels, or nil when the theme has none.
    func icon(_ name: String, size: Int32) -> OpaquePointer? {
        let key = "\(name)@\(size)"
        if let known = icons[key] { return known }
        var loaded: OpaquePointer?
        if name.hasPrefix("/") {
            loaded = gdk_pixbuf_new_from_file_at_scale(name, size, size, 1, nil)
        } else if let theme {
            loaded = gtk_icon_theme_load_icon(theme, name, size, GTK_ICON_LOOKUP_FORCE_SIZE, nil)
        }
        icons[key] = loaded
        return loaded
    }

    /// An extension's PNG, or nil when it is not one.
    func picture(_ png: Data) -> OpaquePointer? {
        if let known = pictures[png] { return known }
        var decoded: OpaquePointer?
        if let loader = gdk_pixbuf_loader_new() {
            let written = png.withUnsafeBytes { bytes -> Bool in
                guard let base = bytes.bindMemory(to: guchar.self).baseAddress else { return false }
                return gdk_pixbuf_loader_write(loader, base, gsize(bytes.count), nil) != 0
            }
            if gdk_pixbuf_loader_close(loader, nil) != 0, written, let pixbuf = gdk_pixbuf_loader_get_pixbuf(loader) {
                g_object_ref(UnsafeMutableRawPointer(pixbuf))
                decoded = pixbuf
            }
            g_object_unref(UnsafeMutableRawPointer(loader))
        }
        if let image = decoded, gdk_pixbuf_get_width(image) > 4096 || gdk_pixbuf_get_height(image) > 4096 {
            g_object_unref(UnsafeMutableRawPointer(image))
            decoded = nil
        }
        pictures[png] = decoded
        return decoded
    }

    func size(of png: Data) -> (width: Double, height: Double)? {
        picture(png).map { (Double(gdk_pixbuf_get_width($0)), Double(gdk_pixbuf_get_height($0))) }
    }
}
