import CGtk
import Foundation

/// An icon as a desktop entry names it: a theme name (with `fallback` behind it), or an
/// image file's absolute path. GtkImage resolves it when it is first drawn, so hundreds of
/// them cost nothing until they show.
package enum GtkIconImage {
    package static func image(_ icon: String?, size: Int32, fallback: String) -> UnsafeMutablePointer<GtkWidget> {
        let gicon: OpaquePointer
        if let icon, icon.hasPrefix("/"), FileManager.default.fileExists(atPath: icon) {
            let file = g_file_new_for_path(icon)!
            gicon = g_file_icon_new(file)!
            g_object_unref(UnsafeMutableRawPointer(file))
        } else {
            // Entries sometimes name an icon with its file's extension; themes do not.
            let name =
                icon.map(withoutImageExtension).flatMap { $0.isEmpty || $0.hasPrefix("/") ? nil : $0 } ?? fallback
            let themed = g_themed_icon_new(name)!
            if name != fallback { g_themed_icon_append_name(themed, fallback) }
            gicon = themed
        }
        let image = gtk_image_new_from_gicon(gicon, GTK_ICON_SIZE_LARGE_TOOLBAR)!
        g_object_unref(UnsafeMutableRawPointer(gicon))
        gtk_image_set_pixel_size(cast(image), size)
        return image
    }

    private static func withoutImageExtension(_ name: String) -> String {
        for suffix in [".png", ".svg", ".xpm"] where name.hasSuffix(suffix) {
            return String(name.dropLast(suffix.count))
        }
        return name
    }
}
