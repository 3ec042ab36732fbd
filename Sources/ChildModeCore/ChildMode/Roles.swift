import ScreenwardIPC

/// What a local user may do with Screenward's system daemon.
public enum Role: Sendable, Hashable, Codable, CustomStringConvertible {
    /// root, or a member of the guardians' group (`screenward-guardians`): manages children
    /// from their own session.
    case guardian
    /// A child whose limits the daemon owns: reads their own usage and shields, nothing else.
    case managed
    /// Anyone else: the daemon has nothing for them (they use the per-user agent).
    case unmanaged

    public var description: String {
        switch self {
        case .guardian: "guardian"
        case .managed: "managed user"
        case .unmanaged: "not managed"
        }
    }
}

/// Who is a guardian and who may be managed; decided from the account databases and
/// the daemon's list of managed users, never from anything a client says about itself.
public struct GuardianPolicy: Sendable {
    /// The group whose membership makes a guardian (root always is one), unless the daemon
    /// is told another (`--guardian-group`: tests run daemons with groups of their own).
    public static let standardGuardianGroup = "screenward-guardians"
    public let guardianGroup: String
    /// Administrators cannot be managed: they could undo it (malcontent refuses likewise).
    public static let administratorGroups: Set<String> = ["sudo", "wheel", "admin"]
    /// Below this, Debian's accounts are system accounts, not people.
    public static let firstLoginUID: UInt32 = 1000

    public init(guardianGroup: String = GuardianPolicy.standardGuardianGroup) {
        self.guardianGroup = guardianGroup
    }

    public func role(of account: Account, isManaged: Bool) -> Role {
        if account.uid == 0 || account.groups.contains(guardianGroup) { return .guardian }
        return isManaged ? .managed : .unmanaged
    }

    /// Why `account` cannot be made a managed user, or nil if it can: a phrase, which the
    /// command line that asked translates.
    public func refusalToManage(_ account: Account) -> Phrase? {
        let name = account.name
        if account.uid == 0 {
            return Phrase("{name} has uid 0 (root): root cannot be a managed user", context: "daemon", ["name": name])
        }
        if account.groups.contains(guardianGroup) {
            // swift-format-ignore
            return Phrase("{name} is a guardian (in the group {group}): a guardian cannot be a managed user; remove them from the group first", context: "daemon", ["name": name, "group": guardianGroup])
        }
        if let group = account.groups.first(where: Self.administratorGroups.contains) {
            // swift-format-ignore
            return Phrase("{name} is an administrator (in the group {group}) and could undo any limit: an administrator cannot be a managed user", context: "daemon", ["name": name, "group": group])
        }
        if account.uid < Self.firstLoginUID {
            return Phrase(
                "{name} is a system account (uid {uid}), not a person's login", context: "daemon",
                ["name": name, "uid": String(account.uid)])
        }
        return nil
    }
}
