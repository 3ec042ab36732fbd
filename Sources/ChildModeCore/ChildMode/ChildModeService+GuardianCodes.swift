import Foundation
import ScreenwardIPC

/// Guardians' authenticators: each guardian sets up their own, from their own account
/// (the daemon knows them by the socket's peer credentials), and approves at a child's
/// desk with its one-time codes.
extension ChildModeService {
    var guardianCodes: GuardianCodes { GuardianCodes(state: state) }

    func enrollGuardian(_ guardian: Account) throws -> GuardianEnrollment {
        try guardianCodes.enroll(uid: guardian.uid, name: guardian.name, at: now())
    }

    func unenrollGuardian(_ guardian: Account) throws -> Bool {
        try guardianCodes.unenroll(uid: guardian.uid)
    }

    /// Checks a code typed at a child's desk for the guardian named `name` (the dialog's
    /// choice, so checked again here), spending it if right.
    public func checkGuardianCode(named name: String, code: String) -> CodeCheck {
        guard isGuardian(named: name) else { return .wrong }
        do {
            guard let account = try accounts.account(named: name) else { return .wrong }
            return guardianCodes.check(code, uid: account.uid, at: now())
        } catch {
            return .unavailable("\(error)")
        }
    }
}
