import Glibc

/// A local user as the user database (`/etc/passwd` or any NSS source) describes it.
public struct UnixAccount: Hashable, Sendable, CustomStringConvertible {
    public var name: String
    public var uid: UserID
    /// The primary group.
    public var gid: GroupID
    public var home: String
    public var shell: String

    public init(name: String, uid: UserID, gid: GroupID, home: String, shell: String) {
        self.name = name
        self.uid = uid
        self.gid = gid
        self.home = home
        self.shell = shell
    }

    public var description: String { "\(name) (uid \(uid))" }

    /// The account called `name`; nil if there is none (an empty name or one with a NUL
    /// byte names none). Throws when the database could not be read.
    public static func named(_ name: String) throws(AccountLookupError) -> UnixAccount? {
        guard ReentrantLookup.isPlausibleName(name) else { return nil }
        return try ReentrantLookup.find(
            function: "getpwnam_r", query: "the user \"\(name)\"", sizeHint: Int32(_SC_GETPW_R_SIZE_MAX),
            empty: passwd(),
            call: { entry, buffer, size, result in getpwnam_r(name, entry, buffer, size, result) },
            convert: UnixAccount.init(entry:))
    }

    /// The account whose uid is `uid`; nil if there is none.
    public static func withID(_ uid: UserID) throws(AccountLookupError) -> UnixAccount? {
        try ReentrantLookup.find(
            function: "getpwuid_r", query: "uid \(uid)", sizeHint: Int32(_SC_GETPW_R_SIZE_MAX), empty: passwd(),
            call: { entry, buffer, size, result in getpwuid_r(uid.rawValue, entry, buffer, size, result) },
            convert: UnixAccount.init(entry:))
    }

    init(entry: passwd) {
        self.init(
            name: ReentrantLookup.string(entry.pw_name), uid: UserID(rawValue: entry.pw_uid),
            gid: GroupID(rawValue: entry.pw_gid),
            home: ReentrantLookup.string(entry.pw_dir), shell: ReentrantLookup.string(entry.pw_shell))
    }
}
