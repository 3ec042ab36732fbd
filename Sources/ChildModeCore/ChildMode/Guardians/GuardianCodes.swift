import Foundation

/// What checking a guardian's one-time code said.
public enum CodeCheck: Sendable, Equatable {
    case accepted
    /// Not the code of this step or the one before.
    case wrong
    /// The right code, already used: a code works once, even within its 30 s.
    case reused
    /// The guardian has no authenticator set up (`screenward guardian enroll`).
    case notEnrolled
    /// Not a code at all (letters, too long, too short): the reason is for the person.
    case malformed(String)
    /// The daemon could not read or write its state: the reason is for the log.
    case unavailable(String)
}

/// A guardian's new authenticator secret, shown to them once (`screenward guardian enroll`).
public struct GuardianEnrollment: Sendable, Hashable, Codable {
    public var guardian: String
    /// RFC 4648 base32, to type into an app that cannot scan.
    public var secret: String
    /// The `otpauth://totp/…` URI the QR code holds.
    public var uri: String
    /// Whether an earlier secret was replaced (its codes no longer work).
    public var replaced: Bool

    public init(guardian: String, secret: String, uri: String, replaced: Bool) {
        self.guardian = guardian
        self.secret = secret
        self.uri = uri
        self.replaced = replaced
    }
}

/// Guardians' authenticators, as the daemon checks them: a secret per guardian, made
/// here and shown once; a code approves once, in its own 30 s step or the one before
/// (a phone's clock a little behind, or a guardian slow to type), never again after a
/// later one was used. Rate limiting is the caller's (`GuardianApprovals`).
public struct GuardianCodes: Sendable {
    /// Steps before the current one whose codes still work.
    public static let earlierStepsAccepted: Int64 = 1

    public let state: DaemonState

    public init(state: DaemonState) {
        self.state = state
    }

    /// Makes and stores a new secret for the guardian `uid`, replacing any earlier one.
    public func enroll(uid: UInt32, name: String, at time: Date) throws -> GuardianEnrollment {
        let code = OneTimeCode(secret: OneTimeCode.newSecret())
        let replaced = try state.enrollGuardianCode(uid: uid, name: name, secret: code.secret, at: time)
        return GuardianEnrollment(
            guardian: name, secret: code.base32Secret, uri: code.provisioningURI(account: name), replaced: replaced)
    }

    /// Forgets the guardian's secret; returns whether there was one.
    public func unenroll(uid: UInt32) throws -> Bool {
        try state.removeGuardianCode(uid: uid)
    }

    public func isEnrolled(uid: UInt32) -> Bool {
        (try? state.guardianCode(uid: uid)) != nil
    }

    /// Checks `typed` against guardian `uid`'s codes at `now`, and spends it if right.
    public func check(_ typed: String, uid: UInt32, at now: Date) -> CodeCheck {
        let digits: String
        do {
            digits = try OneTimeCodeInput.digits(of: typed)
        } catch {
            return .malformed("\(error)")
        }
        do {
            guard let stored = try state.guardianCode(uid: uid) else { return .notEnrolled }
            let code = OneTimeCode(secret: stored.secret)
            let current = OneTimeCode.step(at: now)
            for step in stride(from: current, through: max(0, current - Self.earlierStepsAccepted), by: -1)
            where OneTimeCodeInput.same(code.code(forStep: step), digits) {
                return try state.spendGuardianCodeStep(uid: uid, step: step) ? .accepted : .reused
            }
            return .wrong
        } catch {
            return .unavailable("\(error)")
        }
    }
}
