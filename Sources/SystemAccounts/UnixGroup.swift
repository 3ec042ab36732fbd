import Glibc

/// A group as the group database describes it.
public struct UnixGroup: Hashable, Sendable, CustomStringConvertible {
    public var name: String
    public var gid: GroupID
    /// The users listed in the group's entry. Users whose primary group this is are usually
    /// not listed: ask `UnixAccount.isMember(ofGroupNamed:)` about a given account.
    public var members: [String]

    public init(name: String, gid: GroupID, members: [String]) {
        self.name = name
        self.gid = gid
        self.members = members
    }

    public var description: String { "\(name) (gid \(gid))" }

    /// The group called `name`; nil if there is none.
    public static func named(_ name: String) throws(AccountLookupError) -> UnixGroup? {
        guard ReentrantLookup.isPlausibleName(name) else { return nil }
        return try ReentrantLookup.find(
            function: "getgrnam_r", query: "the group \"\(name)\"", sizeHint: Int32(_SC_GETGR_R_SIZE_MAX),
            empty: group(),
            call: { entry, buffer, size, result in getgrnam_r(name, entry, buffer, size, result) },
            convert: UnixGroup.init(entry:))
    }

    /// The group whose gid is `gid`; nil if there is none.
    public static func withID(_ gid: GroupID) throws(AccountLookupError) -> UnixGroup? {
        try ReentrantLookup.find(
            function: "getgrgid_r", query: "gid \(gid)", sizeHint: Int32(_SC_GETGR_R_SIZE_MAX), empty: group(),
            call: { entry, buffer, size, result in getgrgid_r(gid.rawValue, entry, buffer, size, result) },
            convert: UnixGroup.init(entry:))
    }

    init(entry: group) {
        var members: [String] = []
        // gr_mem is a NULL-terminated array of names.
        if var member = entry.gr_mem {
            while let name = member.pointee {
                members.append(String(cString: name))
                member += 1
            }
        }
        self.init(name: ReentrantLookup.string(entry.gr_name), gid: GroupID(rawValue: entry.gr_gid), members: members)
    }
}
