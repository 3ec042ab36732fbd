/// A top-level window of the session, as its display names it: an X window id, or the number
/// a Wayland backend gives a toplevel it was told of (a Wayland client never learns another's
/// surfaces' ids). Printed in hexadecimal, as X tools print window ids.
public struct WindowID: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt
    public init(_ rawValue: UInt) { self.rawValue = rawValue }
    public var description: String { "0x" + String(rawValue, radix: 16) }
}
