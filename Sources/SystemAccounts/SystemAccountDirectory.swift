import Glibc
import ScreenwardCore

/// The system's user and group databases (NSS: /etc/passwd and /etc/group, or LDAP),
/// asked fresh on each lookup.
public struct SystemAccountDirectory: AccountDirectory {
    public init() {}

    public func account(named name: String) throws -> Account? {
        try Self.lookup { entry, buffer, size, result in getpwnam_r(name, entry, buffer, size, result) }
    }

    public func account(uid: UInt32) throws -> Account? {
        try Self.lookup { entry, buffer, size, result in getpwuid_r(uid, entry, buffer, size, result) }
    }

    /// Runs a getpw*_r call with a buffer that grows on ERANGE, then reads the groups.
    private static func lookup(
        _ call: (UnsafeMutablePointer<passwd>, UnsafeMutablePointer<CChar>, Int, UnsafeMutablePointer<UnsafeMutablePointer<passwd>?>) -> Int32
    ) throws -> Account? {
        var size = max(1024, Int(sysconf(Int32(_SC_GETPW_R_SIZE_MAX))))
        while true {
            var entry = passwd()
            var result: UnsafeMutablePointer<passwd>? = nil
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: size)
            defer { buffer.deallocate() }
            let status = call(&entry, buffer, size, &result)
            if status == ERANGE, size < 1 << 20 {
                size *= 2
                continue
            }
            guard status == 0 else { throw AccountLookupError(call: "getpwnam_r/getpwuid_r", code: status) }
            guard result != nil, let name = entry.pw_name.map({ String(cString: $0) }) else { return nil }
            return Account(name: name, uid: entry.pw_uid, gid: entry.pw_gid, groups: try groupNames(of: name, primary: entry.pw_gid))
        }
    }

    /// The names of the groups `user` is in (getgrouplist, growing its array).
    private static func groupNames(of user: String, primary: gid_t) throws -> [String] {
        var count: Int32 = 32
        var ids: [gid_t] = []
        while true {
            var found = count
            var buffer = [gid_t](repeating: 0, count: Int(count))
            if getgrouplist(user, primary, &buffer, &found) >= 0 {
                ids = Array(buffer.prefix(Int(found)))
                break
            }
            guard found > count, found < 65_536 else { throw AccountLookupError(call: "getgrouplist", code: -1) }
            count = found
        }
        return try ids.compactMap(groupName)
    }

    private static func groupName(_ gid: gid_t) throws -> String? {
        var size = max(1024, Int(sysconf(Int32(_SC_GETGR_R_SIZE_MAX))))
        while true {
            var entry = group()
            var result: UnsafeMutablePointer<group>? = nil
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: size)
            defer { buffer.deallocate() }
            let status = getgrgid_r(gid, &entry, buffer, size, &result)
            if status == ERANGE, size < 1 << 20 {
                size *= 2
                continue
            }
            guard status == 0 else { throw AccountLookupError(call: "getgrgid_r", code: status) }
            guard result != nil else { return nil }
            return entry.gr_name.map { String(cString: $0) }
        }
    }
}

public struct AccountLookupError: Error, CustomStringConvertible {
    public let call: String
    public let code: Int32

    public var description: String { "the account lookup failed (\(call): \(String(cString: strerror(code))))" }
}
