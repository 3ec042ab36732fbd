/// A rectangle on the X screen, in root-window pixels: where a window is drawn and
/// where its shield must go. Shared by the window watcher (X11Session) and the
/// shield window (ShieldUI), which never see each other's C types.
public struct ScreenRect: Hashable, Sendable, Codable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var isEmpty: Bool { width <= 0 || height <= 0 }

    /// Whether `other` lies entirely inside this rectangle.
    public func contains(_ other: ScreenRect) -> Bool {
        other.x >= x && other.y >= y && other.x + other.width <= x + width && other.y + other.height <= y + height
    }

    public var description: String { "\(width)x\(height)+\(x)+\(y)" }
}
