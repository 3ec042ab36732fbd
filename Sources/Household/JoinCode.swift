import Foundation
import ScreenwardIPC

/// A code a guardian gives a computer to join the household: 50 characters of Crockford's
/// base32 (no i, l, o or u), shown as ten groups of five. The first ten name the one-time
/// database role the code opens (`screenward_join_<ten>`), the next twenty (100 bits) are its
/// password: a guess is a login that fails, at the database's pace. The last twenty are the
/// first 100 bits of the server's certificate's fingerprint: the joining computer talks to
/// no other server, and keeps the whole fingerprint of the one it met.
public struct JoinCode: Sendable, Equatable, CustomStringConvertible {
    public let roleSuffix: String
    public let secret: String
    public let certificatePart: String

    static let length = 50

    static let alphabet = Array("0123456789abcdefghjkmnpqrstvwxyz")

    /// A new random code for the server with `certificate`.
    public static func make(certificate: CertificateFingerprint) -> JoinCode {
        var generator = SystemRandomNumberGenerator()
        let characters = (0..<30).map { _ in alphabet[Int(generator.next(upperBound: UInt32(alphabet.count)))] }
        return JoinCode(
            roleSuffix: String(characters.prefix(10)), secret: String(characters.dropFirst(10)),
            certificatePart: certificate.codePart)
    }

    private init(roleSuffix: String, secret: String, certificatePart: String) {
        self.roleSuffix = roleSuffix
        self.secret = secret
        self.certificatePart = certificatePart
    }

    /// Whether a server's certificate is the one this code was made for.
    public func names(_ certificate: CertificateFingerprint) -> Bool {
        certificate.codePart == certificatePart
    }

    /// A code as a person typed it: any case, dashes and spaces anywhere, and the letters
    /// people mistake for digits (i, l, o) taken for them.
    public init(parsing text: String) throws {
        var characters: [Character] = []
        for character in text.lowercased() where character != "-" && character != " " {
            switch character {
            case "i", "l": characters.append("1")
            case "o": characters.append("0")
            default:
                guard Self.alphabet.contains(character) else {
                    throw HouseholdError(
                        Phrase(
                            "a join code has only letters and digits (and dashes): \"{character}\" is not one",
                            context: "household", ["character": String(character)]))
                }
                characters.append(character)
            }
        }
        guard characters.count == Self.length else {
            throw HouseholdError(
                Phrase(
                    "a join code has 50 letters and digits (ten groups of five); this one has {count}",
                    context: "household", ["count": String(characters.count)]))
        }
        self.init(
            roleSuffix: String(characters.prefix(10)), secret: String(characters[10..<30]),
            certificatePart: String(characters.suffix(20)))
    }

    public var role: String { "screenward_join_\(roleSuffix)" }

    public var description: String {
        let all = Array(roleSuffix + secret + certificatePart)
        return stride(from: 0, to: all.count, by: 5).map { String(all[$0..<min($0 + 5, all.count)]) }
            .joined(separator: "-")
    }
}
