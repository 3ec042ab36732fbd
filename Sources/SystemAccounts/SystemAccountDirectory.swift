import ScreenwardCore

/// The system's user and group databases (NSS: /etc/passwd and /etc/group, or LDAP),
/// asked fresh on each lookup: a guardian added to the group is one from their next request.
public struct SystemAccountDirectory: AccountDirectory {
    public init() {}

    public func account(named name: String) throws -> Account? {
        try UnixAccount.named(name).map(Self.account)
    }

    public func account(uid: UInt32) throws -> Account? {
        try UnixAccount.withID(UserID(rawValue: uid)).map(Self.account)
    }

    /// A group without an entry (a gid nobody named) makes nobody a guardian or an administrator.
    private static func account(_ account: UnixAccount) throws -> Account {
        Account(
            name: account.name, uid: account.uid.rawValue, gid: account.gid.rawValue,
            groups: try account.supplementaryGroups().compactMap(\.name))
    }
}
