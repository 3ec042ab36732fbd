import Glibc

/// One group an account is in: its id, and its name when the group database has one
/// (a primary gid with no group entry has none).
public struct AccountGroup: Hashable, Sendable, CustomStringConvertible {
    public var gid: GroupID
    public var name: String?

    public init(gid: GroupID, name: String?) {
        self.gid = gid
        self.name = name
    }

    public var description: String { name.map { "\($0) (gid \(gid))" } ?? "gid \(gid)" }
}

extension UnixAccount {
    /// Most groups a Linux process can be in (NGROUPS_MAX); a longer list is a broken database.
    static let maximumGroupCount: Int32 = 65536

    /// The ids of every group the account is in, as login would set them (initgroups):
    /// its primary group first, then the groups that list it as a member. getgrouplist is
    /// asked again with the size it reports until the list fits.
    public func groupIDs() throws(AccountLookupError) -> [GroupID] {
        guard ReentrantLookup.isPlausibleName(name) else { return [gid] }
        var capacity: Int32 = 32
        while true {
            var ids = [gid_t](repeating: 0, count: Int(capacity))
            var count = capacity
            let status = getgrouplist(name, gid.rawValue, &ids, &count)
            if status >= 0 {
                var seen = Set<gid_t>()
                return ids.prefix(Int(count)).filter { seen.insert($0).inserted }.map(GroupID.init(rawValue:))
            }
            // glibc sets `count` to the size needed; grow by at least double in case it did not.
            capacity = max(count, capacity * 2)
            guard capacity <= Self.maximumGroupCount else {
                throw .entryTooLarge(
                    function: "getgrouplist", query: "the groups of \"\(name)\"",
                    bytes: Int(capacity) * MemoryLayout<gid_t>.size)
            }
        }
    }

    /// Every group the account is in (primary group included, as getgrouplist counts it:
    /// the "supplementary groups" a login session gets), with their names.
    public func supplementaryGroups() throws(AccountLookupError) -> [AccountGroup] {
        var groups: [AccountGroup] = []
        for id in try groupIDs() {
            groups.append(AccountGroup(gid: id, name: try UnixGroup.withID(id)?.name))
        }
        return groups
    }

    /// Whether the account is in the group called `groupName` (as its primary group or as
    /// a listed member). False when there is no such group.
    public func isMember(ofGroupNamed groupName: String) throws(AccountLookupError) -> Bool {
        guard let group = try UnixGroup.named(groupName) else { return false }
        return try groupIDs().contains(group.gid)
    }
}

/// The same questions as free functions, for callers that read better that way.
public func supplementaryGroups(of account: UnixAccount) throws(AccountLookupError) -> [AccountGroup] {
    try account.supplementaryGroups()
}

public func isMember(_ account: UnixAccount, ofGroupNamed groupName: String) throws(AccountLookupError) -> Bool {
    try account.isMember(ofGroupNamed: groupName)
}
