import Foundation
import ScreenwardIPC

/// Child mode in a household (docs/household.md): a guardian's `child add` or `child remove`
/// on any computer holds on every computer with an account of that name.
extension ChildModeService {
    /// Follows a guardian's word on another computer: `name` managed or not since `at`. What a
    /// guardian did here later stands. Returns what was done, for the log (nil: nothing).
    public func followHousehold(_ name: String, managed: Bool, actor: String, at: Date) throws -> String? {
        guard let account = try accounts.account(named: name) else { return nil }
        let here = try state.managedUser(uid: account.uid)
        if managed {
            guard here == nil else { return nil }
            let removedHere = try state.events(uid: account.uid).last { $0.kind == .unmanaged && $0.computer == nil }
            if let removedHere, removedHere.at > at { return nil }
            if let refusal = policy.refusalToManage(account) {
                return "\(actor) made \(name) managed; not here: \(refusal)"
            }
            _ = try state.manage(account, by: actor, at: now())
            try homes.create(for: account.uid)
            onManagedUsersChanged?()
            return "\(name) is managed here too, as \(actor) said"
        }
        guard let here, here.since < at else { return nil }
        try state.unmanage(uid: here.uid, name: here.name, by: actor, at: now())
        onManagedUsersChanged?()
        return "\(name) is no longer managed here either, as \(actor) said"
    }
}
