/// An X server timestamp: milliseconds of the server's clock, 32 bits, wrapping every 49.7
/// days (`ServerClock` places them on the local clocks). Not a duration and not a date: two
/// are compared by the server's clock only, and 0 is `CurrentTime` in a request.
public struct ServerTime: RawRepresentable, Hashable, Sendable, ExpressibleByIntegerLiteral,
    CustomStringConvertible
{
    public let rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public init(integerLiteral value: UInt32) { rawValue = value }

    /// An Xlib `Time` (a C long holding the 32-bit stamp).
    init(_ time: UInt) { rawValue = UInt32(truncatingIfNeeded: time) }

    public var description: String { "\(rawValue)" }
}
