import CXattr
import Glibc

/// Grants one more user access to a file through its POSIX access control list
/// (`system.posix_acl_access`), as `setfacl -P -m u:UID:PERMS` would, keeping every other
/// entry. The daemon lets the agents' user reach a managed child's compositor socket this way:
/// the socket and its folder stay the child's, and nothing else of theirs is opened.
///
/// `lsetxattr` never follows a symbolic link: a link the child put at the path gets no
/// access list (Linux refuses one on a link) rather than its target getting one.
public enum AccessControlList {
    public struct Permissions: OptionSet, Sendable {
        public let rawValue: UInt16
        public init(rawValue: UInt16) { self.rawValue = rawValue }
        public static let read = Permissions(rawValue: 4)
        public static let write = Permissions(rawValue: 2)
        public static let execute = Permissions(rawValue: 1)
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Adds (or replaces) the entry of `uid` on `path` with `permissions`.
    public static func grant(_ permissions: Permissions, to uid: UInt32, on path: String) throws {
        var info = stat()
        guard unsafe lstat(path, &info) == 0 else { throw failure("cannot read \(path)") }
        guard info.st_mode & S_IFMT != S_IFLNK else { throw Failure(description: "\(path) is a symbolic link") }
        var entries = read(path) ?? Self.entries(mode: info.st_mode)
        entries.removeAll { $0.tag == Tag.user && $0.id == uid }
        entries.append(Entry(tag: Tag.user, permissions: permissions.rawValue, id: uid))
        // A list with named entries has a mask: what the group class may do, named users included.
        let mask = entries.filter { [Tag.user, Tag.groupOwner, Tag.group].contains($0.tag) }
            .reduce(UInt16(0)) { $0 | $1.permissions }
        entries.removeAll { $0.tag == Tag.mask }
        entries.append(Entry(tag: Tag.mask, permissions: mask, id: undefinedID))
        entries.sort { ($0.tag, $0.id) < ($1.tag, $1.id) }
        let bytes = encode(entries)
        let result = unsafe bytes.withUnsafeBytes { buffer in
            unsafe lsetxattr(path, attribute, buffer.baseAddress, buffer.count, 0)
        }
        guard result == 0 else { throw failure("cannot give uid \(uid) access to \(path)") }
    }

    /// The permissions `uid`'s own entry on `path` grants, if it has one.
    public static func permissions(of uid: UInt32, on path: String) -> Permissions? {
        read(path)?.first { $0.tag == Tag.user && $0.id == uid }.map { Permissions(rawValue: $0.permissions) }
    }

    // MARK: The extended attribute's format (linux/posix_acl_xattr.h)

    private static let attribute = "system.posix_acl_access"
    private static let version: UInt32 = 2
    private static let undefinedID: UInt32 = 0xFFFF_FFFF

    private enum Tag {
        static let userOwner: UInt16 = 0x01
        static let user: UInt16 = 0x02
        static let groupOwner: UInt16 = 0x04
        static let group: UInt16 = 0x08
        static let mask: UInt16 = 0x10
        static let other: UInt16 = 0x20
    }

    private struct Entry {
        var tag: UInt16
        var permissions: UInt16
        var id: UInt32
    }

    /// The list the file's mode stands for, when it has none of its own.
    private static func entries(mode: mode_t) -> [Entry] {
        [
            Entry(tag: Tag.userOwner, permissions: UInt16((mode >> 6) & 7), id: undefinedID),
            Entry(tag: Tag.groupOwner, permissions: UInt16((mode >> 3) & 7), id: undefinedID),
            Entry(tag: Tag.other, permissions: UInt16(mode & 7), id: undefinedID),
        ]
    }

    private static func read(_ path: String) -> [Entry]? {
        var bytes = [UInt8](repeating: 0, count: 4 + 8 * 64)
        let count = unsafe bytes.withUnsafeMutableBytes { buffer in
            unsafe lgetxattr(path, attribute, buffer.baseAddress, buffer.count)
        }
        guard count >= 4, (count - 4) % 8 == 0, littleEndian(bytes, at: 0) == version else { return nil }
        return stride(from: 4, to: count, by: 8).map { offset in
            Entry(
                tag: UInt16(truncatingIfNeeded: littleEndian(bytes, at: offset)),
                permissions: UInt16(truncatingIfNeeded: littleEndian(bytes, at: offset) >> 16),
                id: littleEndian(bytes, at: offset + 4))
        }
    }

    private static func encode(_ entries: [Entry]) -> [UInt8] {
        var bytes = littleEndianBytes(version)
        for entry in entries {
            bytes += littleEndianBytes(UInt32(entry.tag) | UInt32(entry.permissions) << 16)
            bytes += littleEndianBytes(entry.id)
        }
        return bytes
    }

    private static func littleEndian(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << (8 * UInt32($1)) }
    }

    private static func littleEndianBytes(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * UInt32($0))) }
    }

    private static func failure(_ what: String) -> Failure {
        Failure(description: "\(what): \(String(cString: strerror(errno)))")
    }
}
