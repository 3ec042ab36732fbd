import Crypto
import Foundation

/// Time-based one-time codes (TOTP, RFC 6238, over HOTP, RFC 4226), as authenticator
/// apps make them: HMAC-SHA1 of the count of 30 s steps since the epoch, truncated to
/// 6 decimal digits. A guardian approves at a child's desk with one, so the secret they
/// type there (where any X client of the child's can read the keyboard) is worth nothing
/// once used, and their login password is never typed there at all.
public struct OneTimeCode: Sendable {
    /// Seconds per time step (RFC 6238's X, and what every authenticator app assumes).
    public static let stepSeconds: Int64 = 30
    /// Digits per code: what the `otpauth://` URI announces and the dialog asks for.
    public static let digits = 6
    /// Bytes of a secret: 160 bits, the length RFC 4226 recommends for HMAC-SHA1.
    public static let secretLength = 20

    public let secret: [UInt8]

    public init(secret: [UInt8]) {
        self.secret = secret
    }

    /// A new secret of `secretLength` bytes from the system's cryptographic generator
    /// (getrandom on Linux).
    public static func newSecret() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<secretLength).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// The time step `date` falls in (RFC 6238's T, with T0 = 0); 0 before the epoch.
    public static func step(at date: Date) -> Int64 {
        max(0, Int64((date.timeIntervalSince1970 / Double(stepSeconds)).rounded(.down)))
    }

    /// The code for time step `step`, `digits` long with leading zeros (RFC 4226's
    /// dynamic truncation). `digits` is clamped to 1...9: a 31-bit value has no more.
    public func code(forStep step: Int64, digits: Int = OneTimeCode.digits) -> String {
        let digits = min(max(digits, 1), 9)
        let counter = UInt64(max(0, step))
        let message = (0..<8).map { UInt8(truncatingIfNeeded: counter >> (56 - 8 * $0)) }
        let mac = Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: SymmetricKey(data: secret)))
        let offset = Int(mac[mac.count - 1] & 0x0f)
        let value =
            UInt32(mac[offset] & 0x7f) << 24 | UInt32(mac[offset + 1]) << 16 | UInt32(mac[offset + 2]) << 8
            | UInt32(mac[offset + 3])
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let text = String(value % modulus)
        return String(repeating: "0", count: digits - text.count) + text
    }

    /// The code shown at `date`.
    public func code(at date: Date, digits: Int = OneTimeCode.digits) -> String {
        code(forStep: Self.step(at: date), digits: digits)
    }

    /// The secret as authenticator apps take it typed in: RFC 4648 base32, no padding.
    public var base32Secret: String { Base32.encode(secret) }

    /// The `otpauth://` URI an authenticator app scans (as a QR code) to add `account`.
    public func provisioningURI(account: String, issuer: String = "Screenward") -> String {
        // The label and issuer are percent-encoded: an account name may hold any byte
        // a Unix name allows, and `:` separates issuer from account in the label.
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        func escaped(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text }
        return "otpauth://totp/\(escaped(issuer)):\(escaped(account))?secret=\(base32Secret)&issuer=\(escaped(issuer))"
            + "&algorithm=SHA1&digits=\(Self.digits)&period=\(Self.stepSeconds)"
    }
}

/// What a person typed where a one-time code goes, checked before any secret is used.
public enum OneTimeCodeInput {
    /// Longer than this is not a mistyped code: it is refused before it is even read.
    static let longest = 64

    public struct Malformed: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// The code's digits: spaces (apps show "123 456") are dropped; anything but exactly
    /// `OneTimeCode.digits` ASCII digits is refused with a reason a person understands.
    public static func digits(of typed: String) throws -> String {
        guard typed.utf8.count <= longest else {
            throw Malformed(description: "That is far too long for a code: a code is \(OneTimeCode.digits) digits.")
        }
        let kept = typed.unicodeScalars.filter { !$0.properties.isWhitespace }
        guard kept.allSatisfy({ ("0"..."9").contains($0) }) else {
            throw Malformed(
                description:
                    "A code has only digits: type the \(OneTimeCode.digits) digits your authenticator app shows.")
        }
        guard kept.count == OneTimeCode.digits else {
            throw Malformed(description: "A code is \(OneTimeCode.digits) digits; that was \(kept.count).")
        }
        return String(String.UnicodeScalarView(kept))
    }

    /// Compares two codes in time independent of where they differ (no early exit).
    public static func same(_ left: String, _ right: String) -> Bool {
        let a = Array(left.utf8)
        let b = Array(right.utf8)
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}

/// RFC 4648 base32 (A–Z, 2–7), without padding: the form `otpauth://` secrets take.
public enum Base32 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    public static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = buffer << 8 | UInt32(byte)
            bits += 8
            while bits >= 5 {
                output.append(alphabet[Int(buffer >> UInt32(bits - 5) & 0x1f)])
                bits -= 5
            }
        }
        if bits > 0 { output.append(alphabet[Int(buffer << UInt32(5 - bits) & 0x1f)]) }
        return String(decoding: output, as: UTF8.self)
    }
}
