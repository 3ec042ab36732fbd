import CPam
import Foundation
import Glibc

/// Checks a user's password with PAM, the way a login would, through a service file of
/// its own (`/etc/pam.d/screenward`, from desktop/pam/screenward).
///
/// pam_unix reads /etc/shadow directly only as root; anyone else goes through its
/// unix_chkpwd helper, which checks only the caller's own password and says "wrong" for
/// everyone else's. So `verify(user:password:)` must run as root (anyone else gets
/// `PAMError.requiresRoot`, not a misleading verdict), and `verifyOwn(password:)` checks
/// the calling account's own, as a screen locker does.
///
/// A wrong password takes about two seconds to come back (pam_unix's failure delay): call
/// it off any event loop. The password is never logged; the copies made here are wiped,
/// the caller's `String` cannot be.
public struct PAMAuthenticator: Sendable {
    /// Where PAM reads service files.
    public static let serviceDirectory = "/etc/pam.d"
    public static let defaultService = "screenward"

    public init() {}

    public func verify(user: String, password: String, service: String = PAMAuthenticator.defaultService)
        throws(PAMError) -> PasswordVerdict
    {
        let uid = geteuid()
        guard uid == 0 else { throw .requiresRoot(effectiveUID: uid) }
        // An account without a password is no guardian's proof.
        return try check(user: user, password: password, service: service, allowingNoPassword: false)
    }

    /// Checks the password of the account this process runs as (its real user id), as the
    /// person confirms something with it. An account that has no password (pam_unix's
    /// `nullok`) is confirmed with an empty one: there is nothing more to ask of its person.
    public func verifyOwn(password: String, service: String = PAMAuthenticator.defaultService)
        throws(PAMError) -> PasswordVerdict
    {
        guard let account = try? UnixAccount.withID(UserID(rawValue: getuid())) else { return .rejected }
        return try check(user: account.name, password: password, service: service, allowingNoPassword: true)
    }

    private func check(user: String, password: String, service: String, allowingNoPassword: Bool)
        throws(PAMError) -> PasswordVerdict
    {
        guard !service.isEmpty, service != ".", service != "..", !service.contains("/"), !service.utf8.contains(0)
        else {
            throw .invalidServiceName(service)
        }
        // Linux-PAM falls back to /etc/pam.d/other for a missing service: that would check
        // passwords with rules nobody chose for Screenward, so a missing file is an error.
        let path = Self.serviceDirectory + "/" + service
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw .serviceFileMissing(path: path)
        }
        // A name or password PAM cannot receive (cut at a NUL) matches no account: the same
        // answer as any other wrong pair, without asking PAM about a different name.
        guard !user.isEmpty, !user.utf8.contains(0), !password.utf8.contains(0) else { return .rejected }

        let conversation = PAMConversation(password: password)
        defer { conversation.wipe() }
        return try withExtendedLifetime(conversation) { () throws(PAMError) -> PasswordVerdict in
            var callbacks = conversation.callbacks()
            var handle: OpaquePointer?
            let started = PAMStatus(rawValue: pam_start(service, user, &callbacks, &handle))
            guard started == .success, let handle else { throw .startFailed(service: service, status: started) }
            var last = started
            // pam_end always, with the last status, so modules clean up as they expect.
            defer { pam_end(handle, last.rawValue) }
            return try Self.check(
                handle: handle, conversation: conversation, allowingNoPassword: allowingNoPassword, last: &last)
        }
    }

    /// pam_authenticate, then (only for a right password, so nothing about the account is
    /// told to someone who does not know it) pam_acct_mgmt.
    private static func check(
        handle: OpaquePointer, conversation: PAMConversation, allowingNoPassword: Bool, last: inout PAMStatus
    ) throws(PAMError) -> PasswordVerdict {
        let flags = allowingNoPassword ? Self.silent : Self.silentNoNullPassword
        let authenticated = PAMStatus(rawValue: pam_authenticate(handle, flags))
        last = authenticated
        switch authenticated {
        case .success:
            break
        case .authenticationError, .userUnknown, .maximumTries:
            return .rejected
        default:
            throw failure(step: "pam_authenticate", status: authenticated, conversation: conversation)
        }
        // Not silent: an account module's reason ("Your account has expired") is worth showing.
        let account = PAMStatus(rawValue: pam_acct_mgmt(handle, 0))
        last = account
        switch account {
        case .success:
            return .accepted
        case .accountExpired, .newPasswordRequired, .permissionDenied, .authenticationError, .userUnknown:
            let reason = ([account.explanation] + conversation.messages).joined(separator: "; ")
            return .accountUnusable(reason: reason)
        default:
            throw failure(step: "pam_acct_mgmt", status: account, conversation: conversation)
        }
    }

    /// PAM_SILENT is 0x80000000: the flags are an int in C, so the bits are reinterpreted.
    private static let silent = Int32(bitPattern: UInt32(PAM_SILENT))
    private static let silentNoNullPassword = Int32(bitPattern: UInt32(PAM_SILENT) | UInt32(PAM_DISALLOW_NULL_AUTHTOK))

    /// A conversation failure names what the stack asked; anything else names the step.
    private static func failure(step: String, status: PAMStatus, conversation: PAMConversation) -> PAMError {
        if status == .conversationError, let request = conversation.unexpectedRequest {
            return .unexpectedConversation(request: request)
        }
        return .failed(step: step, status: status)
    }
}
