import CGtk
import ScreenwardCore

/// What lay under the shield when it was shown, blurred: the bottom layer of its
/// background. Kept small (the blur throws the detail away anyway) and scaled up when
/// drawn, so following a resized window costs nothing.
final class ShieldBackdrop {
    /// The blurred image (cairo_surface_t), a fraction of the captured size.
    private let surface: OpaquePointer
    private let surfaceWidth: Int32
    private let surfaceHeight: Int32
    /// Where the captured part lies in the frame, in fractions of the frame: the part
    /// of a frame that reaches beyond the screen has nothing to capture.
    private let placement: (x: Double, y: Double, width: Double, height: Double)

    private init(surface: OpaquePointer, width: Int32, height: Int32, placement: (x: Double, y: Double, width: Double, height: Double)) {
        self.surface = surface
        self.surfaceWidth = width
        self.surfaceHeight = height
        self.placement = placement
    }

    deinit { cairo_surface_destroy(surface) }

    /// Captures the root window's pixels under `frame` (what is on the screen there now)
    /// and blurs them by about `blurRadius` pixels; nil when the frame is off the screen.
    static func capture(_ frame: ScreenRect, blurRadius: Double) -> ShieldBackdrop? {
        guard let root = gdk_get_default_root_window() else { return nil }
        let left = max(frame.x, 0)
        let top = max(frame.y, 0)
        let right = min(frame.x + frame.width, Int(gdk_window_get_width(root)))
        let bottom = min(frame.y + frame.height, Int(gdk_window_get_height(root)))
        guard right > left, bottom > top, !frame.isEmpty else { return nil }
        guard let captured = gdk_pixbuf_get_from_window(root, Int32(left), Int32(top), Int32(right - left), Int32(bottom - top)) else {
            return nil
        }
        defer { g_object_unref(UnsafeMutableRawPointer(captured)) }

        // A blur is a low-pass filter: downscaling (an area average) does most of it
        // for free, a small three-pass box blur (≈ a Gaussian) smooths the rest, and
        // the bilinear upscale when drawing hides the blocks.
        let factor = max(1, Int(blurRadius / 4))
        let smallWidth = max(1, (right - left) / factor)
        let smallHeight = max(1, (bottom - top) / factor)
        guard let small = gdk_pixbuf_scale_simple(captured, Int32(smallWidth), Int32(smallHeight), GDK_INTERP_BILINEAR) else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(small)) }
        boxBlur(small, radius: 2, passes: 3)
        guard let surface = gdk_cairo_surface_create_from_pixbuf(small, 1, nil) else { return nil }
        let width = Double(frame.width)
        let height = Double(frame.height)
        return ShieldBackdrop(
            surface: surface, width: Int32(smallWidth), height: Int32(smallHeight),
            placement: (Double(left - frame.x) / width, Double(top - frame.y) / height, Double(right - left) / width, Double(bottom - top) / height))
    }

    /// Draws the backdrop stretched over a window of `width` × `height`.
    func draw(on cairo: OpaquePointer, width: Double, height: Double) {
        cairo_save(cairo)
        defer { cairo_restore(cairo) }
        cairo_translate(cairo, placement.x * width, placement.y * height)
        cairo_scale(cairo, placement.width * width / Double(surfaceWidth), placement.height * height / Double(surfaceHeight))
        cairo_set_source_surface(cairo, surface, 0, 0)
        let pattern = cairo_get_source(cairo)
        cairo_pattern_set_filter(pattern, CAIRO_FILTER_BILINEAR)
        // Without PAD the edges would fade to transparent.
        cairo_pattern_set_extend(pattern, CAIRO_EXTEND_PAD)
        cairo_rectangle(cairo, 0, 0, Double(surfaceWidth), Double(surfaceHeight))
        cairo_fill(cairo)
    }

    /// Blurs the pixbuf in place: `passes` horizontal and vertical running-sum box
    /// blurs of `radius`, edges clamped.
    private static func boxBlur(_ pixbuf: OpaquePointer, radius: Int, passes: Int) {
        let width = Int(gdk_pixbuf_get_width(pixbuf))
        let height = Int(gdk_pixbuf_get_height(pixbuf))
        let stride = Int(gdk_pixbuf_get_rowstride(pixbuf))
        let channels = Int(gdk_pixbuf_get_n_channels(pixbuf))
        guard let pixels = gdk_pixbuf_get_pixels(pixbuf) else { return }
        var line = [Int](repeating: 0, count: max(width, height) * channels)
        let span = 2 * radius + 1
        /// One line of `count` pixels, pixel i at byte `start + i * step`.
        func blurLine(start: Int, step: Int, count: Int) {
            for i in 0..<count {
                for c in 0..<channels { line[i * channels + c] = Int(pixels[start + i * step + c]) }
            }
            for c in 0..<channels {
                var sum = 0
                for k in -radius...radius {
                    let clamped: Int = min(max(k, 0), count - 1)
                    sum += line[clamped * channels + c]
                }
                for i in 0..<count {
                    pixels[start + i * step + c] = UInt8(sum / span)
                    let entering: Int = line[min(i + radius + 1, count - 1) * channels + c]
                    let leaving: Int = line[max(i - radius, 0) * channels + c]
                    sum += entering - leaving
                }
            }
        }
        for _ in 0..<passes {
            for y in 0..<height { blurLine(start: y * stride, step: channels, count: width) }
            for x in 0..<width { blurLine(start: x * channels, step: stride, count: height) }
        }
    }
}
