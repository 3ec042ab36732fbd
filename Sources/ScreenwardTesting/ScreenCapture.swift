import CX11
import ScreenwardCore
import X11Session

/// The pixels of a region of the screen, read from the root window (XGetImage): what
/// a person sees there, for tests that check what a window draws without external tools.
public struct ScreenCapture: Sendable {
    /// An 8-bit sRGB pixel.
    public struct Pixel: Hashable, Sendable, CustomStringConvertible {
        public var red: UInt8
        public var green: UInt8
        public var blue: UInt8

        public init(red: UInt8, green: UInt8, blue: UInt8) {
            self.red = red
            self.green = green
            self.blue = blue
        }

        /// The largest difference of one channel (0…255).
        public func distance(to other: Pixel) -> Int {
            max(abs(Int(red) - Int(other.red)), abs(Int(green) - Int(other.green)), abs(Int(blue) - Int(other.blue)))
        }

        public var description: String {
            func hex(_ value: UInt8) -> String { (value < 16 ? "0" : "") + String(value, radix: 16, uppercase: true) }
            return "#" + hex(red) + hex(green) + hex(blue)
        }
    }

    /// The region captured, in root-window pixels.
    public let region: ScreenRect
    private let pixels: [Pixel]

    /// Reads `region` (clipped to the screen) from the root window; nil when nothing of it is on the screen.
    public init?(connection: XConnection, region requested: ScreenRect) {
        let display = connection.display
        var rootAttributes = XWindowAttributes()
        XGetWindowAttributes(display, connection.root, &rootAttributes)
        let left = max(requested.x, 0)
        let top = max(requested.y, 0)
        let right = min(requested.x + requested.width, Int(rootAttributes.width))
        let bottom = min(requested.y + requested.height, Int(rootAttributes.height))
        guard right > left, bottom > top else { return nil }
        let region = ScreenRect(x: left, y: top, width: right - left, height: bottom - top)
        let (image, errors) = connection.withErrorWatch {
            XGetImage(
                display, connection.root, Int32(left), Int32(top), UInt32(region.width), UInt32(region.height),
                UInt.max, ZPixmap)
        }
        guard let image, errors.isEmpty else { return nil }
        defer { _ = image.pointee.f.destroy_image(image) }
        let masks = (image.pointee.red_mask, image.pointee.green_mask, image.pointee.blue_mask)
        guard let getPixel = image.pointee.f.get_pixel else { return nil }
        var pixels: [Pixel] = []
        pixels.reserveCapacity(region.width * region.height)
        for y in 0..<region.height {
            for x in 0..<region.width {
                let value = getPixel(image, Int32(x), Int32(y))
                pixels.append(
                    Pixel(
                        red: Self.channel(value, masks.0), green: Self.channel(value, masks.1),
                        blue: Self.channel(value, masks.2)))
            }
        }
        self.region = region
        self.pixels = pixels
    }

    /// The pixel at (`x`, `y`) in root-window coordinates, which must lie in `region`.
    public func pixel(x: Int, y: Int) -> Pixel {
        precondition(
            region.contains(ScreenRect(x: x, y: y, width: 1, height: 1)),
            "(\(x), \(y)) is outside the capture \(region)")
        return pixels[(y - region.y) * region.width + (x - region.x)]
    }

    /// The mean color of `area` (root-window coordinates, clipped to the capture); nil when they do not meet.
    public func averageColor(in area: ScreenRect) -> (red: Double, green: Double, blue: Double)? {
        let left = max(area.x, region.x)
        let top = max(area.y, region.y)
        let right = min(area.x + area.width, region.x + region.width)
        let bottom = min(area.y + area.height, region.y + region.height)
        guard right > left, bottom > top else { return nil }
        var sums = (0, 0, 0)
        for y in top..<bottom {
            for x in left..<right {
                let pixel = pixel(x: x, y: y)
                sums.0 += Int(pixel.red)
                sums.1 += Int(pixel.green)
                sums.2 += Int(pixel.blue)
            }
        }
        let count = Double((right - left) * (bottom - top))
        return (Double(sums.0) / count, Double(sums.1) / count, Double(sums.2) / count)
    }

    /// How many pixels differ by more than `tolerance` (in a channel) from `other`'s at the
    /// same place; the regions must be the same.
    public func differingPixels(from other: ScreenCapture, tolerance: Int = 0) -> Int {
        precondition(region == other.region, "captures of \(region) and \(other.region)")
        return zip(pixels, other.pixels).filter { $0.distance(to: $1) > tolerance }.count
    }

    /// A channel's 8-bit value from a pixel value and the visual's mask for it.
    private static func channel(_ value: UInt, _ mask: UInt) -> UInt8 {
        guard mask != 0 else { return 0 }
        let shifted = (value & mask) >> UInt(mask.trailingZeroBitCount)
        let maximum = mask >> UInt(mask.trailingZeroBitCount)
        return UInt8((shifted * 255 + maximum / 2) / maximum)
    }
}
