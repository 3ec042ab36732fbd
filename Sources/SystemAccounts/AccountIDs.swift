import Glibc

/// A user id. Its own type, not a bare integer, so a uid is never passed where a gid
/// is expected (the way swift-system wraps C values).
public struct UserID: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible,
    ExpressibleByIntegerLiteral
{
    public var rawValue: uid_t
    public init(rawValue: uid_t) { self.rawValue = rawValue }
    public init(integerLiteral value: uid_t) { rawValue = value }

    public static let root = UserID(rawValue: 0)
    public var description: String { String(rawValue) }
}

/// A group id.
public struct GroupID: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible,
    ExpressibleByIntegerLiteral
{
    public var rawValue: gid_t
    public init(rawValue: gid_t) { self.rawValue = rawValue }
    public init(integerLiteral value: gid_t) { rawValue = value }

    public var description: String { String(rawValue) }
}
