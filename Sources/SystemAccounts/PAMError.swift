/// A password check that could not be made: the system, not the password, failed.
/// Wrong passwords and unusable accounts are `PasswordVerdict`s, not errors.
public enum PAMError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Only root can check another user's password (see `PAMAuthenticator`).
    case requiresRoot(effectiveUID: UInt32)
    /// A service name PAM cannot use as a file name in /etc/pam.d.
    case invalidServiceName(String)
    /// `/etc/pam.d/<service>` does not exist; PAM would silently use `other` instead.
    case serviceFileMissing(path: String)
    /// pam_start could not set up a transaction.
    case startFailed(service: String, status: PAMStatus)
    /// The PAM stack asked for something besides one hidden password (a user name, a second
    /// factor, a visible answer); `request` says what.
    case unexpectedConversation(request: String)
    /// `step` (pam_authenticate, pam_acct_mgmt) failed for a reason other than the password
    /// or the account, such as an unreadable shadow file or a broken module.
    case failed(step: String, status: PAMStatus)

    public var description: String {
        switch self {
        case .requiresRoot(let uid):
            """
            checking a password with PAM needs root (running as uid \(uid)): pam_unix lets other users check only \
            their own password
            """
        case .invalidServiceName(let name):
            "\"\(name)\" is not a PAM service name (a file name in /etc/pam.d: not empty, no \"/\", no NUL)"
        case .serviceFileMissing(let path):
            """
            the PAM service file \(path) is missing: install desktop/pam/screenward there (PAM would otherwise \
            fall back to /etc/pam.d/other)
            """
        case .startFailed(let service, let status):
            "pam_start for the service \"\(service)\" failed: \(status)"
        case .unexpectedConversation(let request):
            "the PAM stack asked for more than a password (\(request)): the service file must use password-only modules"
        case .failed(let step, let status):
            "\(step) failed: \(status)"
        }
    }
}

/// What PAM said about a user and a password.
public enum PasswordVerdict: Equatable, Sendable, CustomStringConvertible {
    /// The password is the user's and the account may be used.
    case accepted
    /// The password is wrong or there is no such user: the two are one outcome on purpose,
    /// so a caller cannot learn which accounts exist. A locked password (`passwd -l`) is this too.
    case rejected
    /// The password is right but the account may not be used now (expired, password
    /// expired, denied by an account module); `reason` says which, for the guardian.
    case accountUnusable(reason: String)

    public var description: String {
        switch self {
        case .accepted: "accepted"
        case .rejected: "wrong user name or password"
        case .accountUnusable(let reason): "the account cannot be used: \(reason)"
        }
    }
}
