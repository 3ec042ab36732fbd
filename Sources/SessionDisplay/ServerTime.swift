/// A display server's timestamp (X's, or a Wayland compositor's): milliseconds of the server's
/// clock, 32 bits, wrapping every 49.7 days (`ServerClock` places X's on the local clocks). Not a
/// duration and not a date: two are compared by the server's clock only, and 0 is `CurrentTime`
/// in a request.
public struct ServerTime: RawRepresentable, Hashable, Sendable, ExpressibleByIntegerLiteral,
    CustomStringConvertible
{
    public let rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public init(integerLiteral value: UInt32) { rawValue = value }

    /// A stamp taken from a wider integer (an Xlib `Time` is a C long holding the 32-bit stamp).
    public init(_ time: UInt) { rawValue = UInt32(truncatingIfNeeded: time) }

    public var description: String { "\(rawValue)" }
}
