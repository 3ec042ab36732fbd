/// A failure the state owner reports to a client, or the channel reports itself.
///
/// The API modules turn codes into their own error types (`FamilyControlsError`,
/// `DeviceActivityCenter.MonitoringError`); the message always says what to do.
public struct ServiceError: Error, Codable, Hashable, Sendable, CustomStringConvertible {
    public struct Code: RawRepresentable, Codable, Hashable, Sendable, ExpressibleByStringLiteral {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(stringLiteral value: String) { rawValue = value }

        /// The client is not authorised (or no longer: its authorization was revoked).
        public static let unauthorized: Code = "unauthorized"
        /// A value is out of range or malformed; the message says which.
        public static let invalidArgument: Code = "invalid-argument"
        /// Apple's limits: more than 20 activities, more than 50 stores or tokens.
        public static let limitExceeded: Code = "limit-exceeded"
        public static let intervalTooShort: Code = "interval-too-short"
        public static let intervalTooLong: Code = "interval-too-long"
        public static let invalidDateComponents: Code = "invalid-date-components"
        /// The account cannot grant that authorization (`.child` outside a managed account).
        public static let invalidAccountType: Code = "invalid-account-type"
        /// Another app already holds `.child` for this managed user.
        public static let authorizationConflict: Code = "authorization-conflict"
        /// The guardian declined, or nobody answered in time.
        public static let authorizationCanceled: Code = "authorization-canceled"
        /// In a managed account, the change restricts less and no guardian approved it.
        public static let guardianApprovalRequired: Code = "guardian-approval-required"
        /// The activity picker could not be shown (no desktop session, not installed, it
        /// failed); the message says why.
        public static let pickerUnavailable: Code = "picker-unavailable"
        /// Not built yet, or not possible here; the message says which and why.
        public static let unsupported: Code = "unsupported"
        /// The agent is not running or does not answer.
        public static let agentUnavailable: Code = "agent-unavailable"
        /// The peer sent something that is not a valid message.
        public static let malformedMessage: Code = "malformed-message"
        public static let unknownMethod: Code = "unknown-method"
        /// The state owner failed (a database error, say); the message has the cause.
        public static let internalFailure: Code = "internal-failure"
    }

    public var code: Code
    /// In English.
    public var message: String
    /// The message as written, for a reader in another language (`Translations` renders it);
    /// nil for a message that is not translated (from an older peer, say).
    public var phrase: Phrase?

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public init(_ code: Code, _ phrase: Phrase) {
        self.code = code
        self.message = phrase.description
        self.phrase = phrase
    }

    public var description: String { message }
}
