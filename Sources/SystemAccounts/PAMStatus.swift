import CPam

/// A PAM return code, with its name and libpam's explanation for error messages.
public struct PAMStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let success = PAMStatus(rawValue: PAM_SUCCESS)
    public static let authenticationError = PAMStatus(rawValue: PAM_AUTH_ERR)
    public static let userUnknown = PAMStatus(rawValue: PAM_USER_UNKNOWN)
    public static let maximumTries = PAMStatus(rawValue: PAM_MAXTRIES)
    public static let conversationError = PAMStatus(rawValue: PAM_CONV_ERR)
    public static let accountExpired = PAMStatus(rawValue: PAM_ACCT_EXPIRED)
    public static let newPasswordRequired = PAMStatus(rawValue: PAM_NEW_AUTHTOK_REQD)
    public static let permissionDenied = PAMStatus(rawValue: PAM_PERM_DENIED)

    /// The C name, for the codes a password check meets.
    public var name: String {
        switch rawValue {
        case PAM_SUCCESS: "PAM_SUCCESS"
        case PAM_AUTH_ERR: "PAM_AUTH_ERR"
        case PAM_USER_UNKNOWN: "PAM_USER_UNKNOWN"
        case PAM_MAXTRIES: "PAM_MAXTRIES"
        case PAM_CONV_ERR: "PAM_CONV_ERR"
        case PAM_ACCT_EXPIRED: "PAM_ACCT_EXPIRED"
        case PAM_NEW_AUTHTOK_REQD: "PAM_NEW_AUTHTOK_REQD"
        case PAM_PERM_DENIED: "PAM_PERM_DENIED"
        case PAM_AUTHINFO_UNAVAIL: "PAM_AUTHINFO_UNAVAIL"
        case PAM_CRED_INSUFFICIENT: "PAM_CRED_INSUFFICIENT"
        case PAM_SYSTEM_ERR: "PAM_SYSTEM_ERR"
        case PAM_BUF_ERR: "PAM_BUF_ERR"
        case PAM_ABORT: "PAM_ABORT"
        default: "PAM status \(rawValue)"
        }
    }

    /// libpam's text for the code (Linux-PAM's pam_strerror does not use its handle).
    public var explanation: String {
        guard let text = pam_strerror(nil, rawValue) else { return "unknown PAM status" }
        return String(cString: text)
    }

    public var description: String { "\(name): \(explanation)" }
}
