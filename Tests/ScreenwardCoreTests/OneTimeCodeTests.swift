import Foundation
import XCTest

@testable import ScreenwardCore

/// RFC 6238's own test vectors (Appendix B, SHA-1), the daemon's once-only rule, and
/// what a person may type where a code goes.
final class OneTimeCodeTests: XCTestCase {
    private let rfcSecret = Array("12345678901234567890".utf8)

    func testRFC6238AppendixBVectorsForSHA1() {
        let vectors: [(TimeInterval, String)] = [
            (59, "94287082"), (1_111_111_109, "07081804"), (1_111_111_111, "14050471"), (1_234_567_890, "89005924"),
            (2_000_000_000, "69279037"), (20_000_000_000, "65353130"),
        ]
        let code = OneTimeCode(secret: rfcSecret)
        for (time, expected) in vectors {
            let date = Date(timeIntervalSince1970: time)
            XCTAssertEqual(code.code(at: date, digits: 8), expected, "at \(time)")
            XCTAssertEqual(code.code(at: date), String(expected.suffix(6)), "6 digits at \(time)")
        }
        XCTAssertEqual(OneTimeCode.step(at: Date(timeIntervalSince1970: 59)), 1)
        XCTAssertEqual(
            OneTimeCode.step(at: Date(timeIntervalSince1970: -100)), 0, "before the epoch: the first step, no trap")
    }

    func testBase32AndTheProvisioningURI() {
        // RFC 4648's vectors, without the padding otpauth URIs leave out.
        for (text, encoded) in [
            ("", ""), ("f", "MY"), ("fo", "MZXQ"), ("foo", "MZXW6"), ("foob", "MZXW6YQ"), ("fooba", "MZXW6YTB"),
            ("foobar", "MZXW6YTBOI"),
        ] {
            XCTAssertEqual(Base32.encode(Array(text.utf8)), encoded)
        }
        let code = OneTimeCode(secret: rfcSecret)
        XCTAssertEqual(code.base32Secret, "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ")
        XCTAssertEqual(
            code.provisioningURI(account: "mum"),
            "otpauth://totp/Screenward:mum?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
                + "&issuer=Screenward&algorithm=SHA1&digits=6&period=30"
        )
        XCTAssertTrue(code.provisioningURI(account: "a b:c").contains("Screenward:a%20b%3Ac?"))
        let secrets = (0..<4).map { _ in OneTimeCode.newSecret() }
        XCTAssertTrue(secrets.allSatisfy { $0.count == 20 })
        XCTAssertEqual(Set(secrets).count, 4, "each secret is new")
    }

    func testWhatIsTypedMustBeSixDigits() {
        XCTAssertEqual(try OneTimeCodeInput.digits(of: " 123 456\n"), "123456")
        for typed in [
            "", "12345", "1234567", "12345a", "correct horse battery", "١٢٣٤٥٦",
            String(repeating: "9", count: 1_000_000),
        ] {
            XCTAssertThrowsError(try OneTimeCodeInput.digits(of: typed), typed.prefix(20).description) { error in
                XCTAssertTrue("\(error)".contains("6 digits"), "\(error)")
            }
        }
        XCTAssertTrue(OneTimeCodeInput.same("123456", "123456"))
        XCTAssertFalse(OneTimeCodeInput.same("123456", "123457"))
        XCTAssertFalse(OneTimeCodeInput.same("123456", "12345"))
    }

    func testACodeWorksOnceInItsStepOrTheNextAndNeverAfterALaterOne() throws {
        let state = try DaemonState()
        let codes = GuardianCodes(state: state)
        let now = Date(timeIntervalSince1970: 1_800_000_015)
        XCTAssertEqual(codes.check("123456", uid: 1000, at: now), .notEnrolled)
        let enrollment = try codes.enroll(uid: 1000, name: "mum", at: now)
        XCTAssertFalse(enrollment.replaced)
        XCTAssertTrue(enrollment.uri.hasPrefix("otpauth://totp/Screenward:mum?secret=\(enrollment.secret)&"))
        let secret = try XCTUnwrap(try state.guardianCode(uid: 1000)?.secret)
        XCTAssertEqual(Base32.encode(secret), enrollment.secret)
        let code = OneTimeCode(secret: secret)

        let current = code.code(at: now)
        let wrong = String(format: "%06d", (Int(current)! + 1) % 1_000_000)
        XCTAssertEqual(codes.check(wrong, uid: 1000, at: now), .wrong)
        XCTAssertEqual(
            codes.check("12a456", uid: 1000, at: now),
            .malformed("A code has only digits: type the 6 digits your authenticator app shows."))
        XCTAssertEqual(codes.check(current, uid: 1000, at: now), .accepted)
        XCTAssertEqual(codes.check(current, uid: 1000, at: now), .reused, "the same code twice in its window")
        XCTAssertEqual(
            codes.check(current, uid: 1000, at: now.addingTimeInterval(30)), .reused, "nor in the next window")

        // The step before is accepted (a slow guardian, a phone a little behind), once;
        // two steps back is not.
        let later = now.addingTimeInterval(90)
        XCTAssertEqual(codes.check(code.code(at: later.addingTimeInterval(-60)), uid: 1000, at: later), .wrong)
        XCTAssertEqual(codes.check(code.code(at: later.addingTimeInterval(-30)), uid: 1000, at: later), .accepted)
        XCTAssertEqual(codes.check(code.code(at: later), uid: 1000, at: later), .accepted)
        XCTAssertEqual(
            codes.check(code.code(at: later.addingTimeInterval(-30)), uid: 1000, at: later), .reused,
            "older than one used")

        // Enrolling again replaces the secret: the old app's codes stop working.
        let again = try codes.enroll(uid: 1000, name: "mum", at: later)
        XCTAssertTrue(again.replaced)
        XCTAssertNotEqual(again.secret, enrollment.secret)
        let muchLater = later.addingTimeInterval(300)
        XCTAssertEqual(codes.check(code.code(at: muchLater), uid: 1000, at: muchLater), .wrong)
        XCTAssertTrue(try codes.unenroll(uid: 1000))
        XCTAssertFalse(try codes.unenroll(uid: 1000))
        XCTAssertEqual(codes.check(code.code(at: muchLater), uid: 1000, at: muchLater), .notEnrolled)
    }
}
