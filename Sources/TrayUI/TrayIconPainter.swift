import CAppIndicator
import Foundation

/// Draws the tray's icon: a ring for the share of today's time left and, in it, the
/// time left (`45` minutes, `2h`, `!` when used up), written as a PNG the indicator
/// shows by name.
public enum TrayIconPainter {
    public struct Face: Hashable, Sendable {
        /// 0…1 of the allowance left; nil: no limit applies (a plain ring).
        public var fractionLeft: Double?
        /// A few characters: `45`, `2h`, `!`.
        public var text: String

        public init(fractionLeft: Double?, text: String) {
            self.fractionLeft = fractionLeft
            self.text = text
        }

        /// A name that changes with the picture (the indicator caches icons by name).
        var fileName: String {
            let share = fractionLeft.map { String(Int(($0 * 100).rounded())) } ?? "none"
            let safe = text.unicodeScalars.map {
                CharacterSet.alphanumerics.contains($0) ? String($0) : String(format: "u%04X", $0.value)
            }.joined()
            return "screenward-\(share)-\(safe)"
        }
    }

    static let size: Int32 = 48

    /// Writes `face` into `directory` (once) and returns the icon's name.
    public static func paint(_ face: Face, in directory: URL) throws -> String {
        let name = face.fileName + "-v2"
        let url = directory.appendingPathComponent("\(name).png")
        if FileManager.default.fileExists(atPath: url.path) { return name }
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, size, size) else {
            throw TrayError("cairo could not make a surface")
        }
        defer { cairo_surface_destroy(surface) }
        guard let cairo = cairo_create(surface) else { throw TrayError("cairo could not draw") }
        defer { cairo_destroy(cairo) }
        let center = Double(size) / 2
        let radius = center - 5
        // A dark disc, so the figure reads on light and dark panels alike; then the
        // track, then the share left, clockwise from the top.
        cairo_set_source_rgba(cairo, 0.11, 0.11, 0.13, 0.92)
        cairo_arc(cairo, center, center, center - 1, 0, 2 * Double.pi)
        cairo_fill(cairo)
        cairo_set_line_width(cairo, 6)
        cairo_set_source_rgba(cairo, 0.55, 0.55, 0.6, 0.6)
        cairo_arc(cairo, center, center, radius, 0, 2 * Double.pi)
        cairo_stroke(cairo)
        if let fraction = face.fractionLeft, fraction > 0 {
            let (red, green, blue) =
                fraction > 0.25 ? (0.2, 0.78, 0.35) : fraction > 0.08 ? (1.0, 0.62, 0.04) : (1.0, 0.27, 0.23)
            cairo_set_source_rgb(cairo, red, green, blue)
            cairo_arc(cairo, center, center, radius, -Double.pi / 2, -Double.pi / 2 + 2 * Double.pi * min(1, fraction))
            cairo_stroke(cairo)
        }
        // The figure, as large as fits inside the ring.
        cairo_select_font_face(cairo, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD)
        cairo_set_font_size(cairo, face.text.count > 2 ? 14 : 19)
        var extents = cairo_text_extents_t()
        cairo_text_extents(cairo, face.text, &extents)
        cairo_move_to(
            cairo, center - extents.width / 2 - extents.x_bearing, center - extents.height / 2 - extents.y_bearing)
        cairo_set_source_rgb(cairo, 1, 1, 1)
        cairo_show_text(cairo, face.text)
        let status = cairo_surface_write_to_png(surface, url.path)
        guard status == CAIRO_STATUS_SUCCESS else { throw TrayError("could not write the tray icon \(url.path)") }
        return name
    }
}
