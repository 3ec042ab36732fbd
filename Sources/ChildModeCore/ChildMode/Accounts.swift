/// A local Unix account, as the system's user and group databases describe it.
public struct Account: Sendable, Hashable, Codable {
    public var name: String
    public var uid: UInt32
    public var gid: UInt32
    /// The names of every group the account is in (its primary group included).
    public var groups: [String]

    public init(name: String, uid: UInt32, gid: UInt32, groups: [String]) {
        self.name = name
        self.uid = uid
        self.gid = gid
        self.groups = groups
    }
}

/// Looks accounts up in the system's databases (the platform module `SystemAccounts`
/// implements it with getpwnam_r and getgrouplist). Lookups are asked fresh each
/// time: a guardian added to the group is one from their next request on.
public protocol AccountDirectory: Sendable {
    /// Nil when there is no such account; throws when the lookup itself failed.
    func account(named name: String) throws -> Account?
    func account(uid: UInt32) throws -> Account?
}
