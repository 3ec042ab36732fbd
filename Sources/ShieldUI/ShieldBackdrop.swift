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

    private init(
        surface: OpaquePointer, width: Int32, height: Int32,
        placement: (x: Double, y: Double, width: Double, height: Double)
    ) {
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
        // A blur is a low-pass filter: downscaling does most of it for free, a small box
        // blur (≈ a Gaussian) smooths the rest, and the bilinear upscale when drawing
        // hides the blocks. The downscale samples bilinearly rather than averaging each
        // block (cairo's GOOD filter): the box blur leaves no visible difference (0.1 % RMS
        // on the README's screenshots), and the capture, on the way to every shield, took
        // 0.8 ms instead of 0.1 (a 482 × 345 window, rules benchmark).
        let width = right - left
        let height = bottom - top
        let factor = max(1, Int(blurRadius / 4))
        let smallWidth = max(1, width / factor)
        let smallHeight = max(1, height / factor)
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(smallWidth), Int32(smallHeight)) else {
            return nil
        }
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS, let cairo = cairo_create(surface) else {
            cairo_surface_destroy(surface)
            return nil
        }
        cairo_scale(cairo, Double(smallWidth) / Double(width), Double(smallHeight) / Double(height))
        gdk_cairo_set_source_window(cairo, root, Double(-left), Double(-top))
        cairo_pattern_set_filter(cairo_get_source(cairo), CAIRO_FILTER_BILINEAR)
        cairo_paint(cairo)
        cairo_destroy(cairo)
        cairo_surface_flush(surface)
        if let pixels = cairo_image_surface_get_data(surface) {
            boxBlur(
                pixels, width: smallWidth, height: smallHeight, stride: Int(cairo_image_surface_get_stride(surface)),
                radius: 2, passes: 3)
        }
        cairo_surface_mark_dirty(surface)
        return ShieldBackdrop(
            surface: surface, width: Int32(smallWidth), height: Int32(smallHeight),
            placement: (
                Double(left - frame.x) / Double(frame.width), Double(top - frame.y) / Double(frame.height),
                Double(width) / Double(frame.width), Double(height) / Double(frame.height)
            ))
    }

    /// Draws the backdrop stretched over a window of `width` × `height`.
    func draw(on cairo: OpaquePointer, width: Double, height: Double) {
        cairo_save(cairo)
        defer { cairo_restore(cairo) }
        cairo_translate(cairo, placement.x * width, placement.y * height)
        cairo_scale(
            cairo, placement.width * width / Double(surfaceWidth), placement.height * height / Double(surfaceHeight))
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
    /// Blurs 32-bit pixels in place: `passes` horizontal and vertical running-sum box
    /// blurs of `radius`, edges clamped. (Raw pointers: this runs on every show, and
    /// must stay fast in debug builds too.)
    private static func boxBlur(
        _ pixels: UnsafeMutablePointer<UInt8>, width: Int, height: Int, stride: Int, radius: Int, passes: Int
    ) {
        // One line of one channel, with `radius + 1` copies of its end pixels on each
        // side so that the running sum needs no bounds checks.
        let padding = radius + 1
        let line = UnsafeMutablePointer<Int32>.allocate(capacity: max(width, height) + 2 * padding)
        defer { line.deallocate() }
        let span = Int32(2 * radius + 1)
        /// One line of `count` pixels, pixel i at byte `start + i * step`.
        func blurLine(_ start: UnsafeMutablePointer<UInt8>, step: Int, count: Int) {
            for channel in 0..<3 {
                var source = start + channel
                let first = Int32(source.pointee)
                for i in 0..<padding { line[i] = first }
                var inside = line + padding
                for _ in 0..<count {
                    inside.pointee = Int32(source.pointee)
                    inside += 1
                    source += step
                }
                let lastValue = inside[-1]
                for i in 0..<padding { inside[i] = lastValue }
                // Centered on pixel 0 (at line[padding]): line[1] … line[2 * radius + 1].
                var sum: Int32 = 0
                for i in 1...(2 * radius + 1) { sum += line[i] }
                var target = start + channel
                var entering = line + 2 * radius + 2
                var leaving = line + 1
                for _ in 0..<count {
                    target.pointee = UInt8(truncatingIfNeeded: sum / span)
                    sum += entering.pointee - leaving.pointee
                    entering += 1
                    leaving += 1
                    target += step
                }
            }
        }
        for _ in 0..<passes {
            for y in 0..<height { blurLine(pixels + y * stride, step: 4, count: width) }
            for x in 0..<width { blurLine(pixels + 4 * x, step: stride, count: height) }
        }
    }
}
