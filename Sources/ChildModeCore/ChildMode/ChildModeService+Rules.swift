import Foundation
import ScreenwardIPC

/// Whose rules a request to the daemon is about, and whether the caller may change them.
public struct RulesAccess: Sendable {
    public var uid: UInt32
    public var user: String
    /// Who acts, for the record.
    public var actor: String
    /// A guardian; a managed user only reads their own rules.
    public var mayChange: Bool
}

extension ChildModeService {
    /// A guardian reaches any managed user's rules (named), a managed user reads their
    /// own; anyone else keeps their own rules in their own agent. A managed user's attempt
    /// to change their rules is recorded for their guardians.
    public func rulesAccess(_ peer: ServicePeer, user name: String?, changing: Bool, action: String) throws
        -> RulesAccess
    {
        let caller = try caller(peer)
        switch caller.role {
        case .guardian:
            guard let name else {
                // swift-format-ignore
                let refusal = Phrase("name the managed user whose rules these are (--user USER); a guardian's own rules are kept by their own agent", context: "daemon")
                throw ServiceError(.invalidArgument, refusal)
            }
            let user = try managedUser(named: name)
            return RulesAccess(uid: user.uid, user: user.name, actor: caller.account.name, mayChange: true)
        case .managed:
            guard name == nil || name == caller.account.name else {
                _ = try guardian(caller, doing: "\(action) --user \(name ?? "")")
                throw ServiceError(
                    .unauthorized, Phrase("a managed user reads only their own rules", context: "daemon"))
            }
            if changing { _ = try guardian(caller, doing: action) }
            return RulesAccess(
                uid: caller.account.uid, user: caller.account.name, actor: caller.account.name, mayChange: false)
        case .unmanaged:
            // swift-format-ignore
            let refusal = Phrase("the system daemon keeps managed users' rules only; {user}'s own rules are kept by their agent (leave out --user)", context: "daemon", ["user": caller.account.name])
            throw ServiceError(.unauthorized, refusal)
        }
    }
}
