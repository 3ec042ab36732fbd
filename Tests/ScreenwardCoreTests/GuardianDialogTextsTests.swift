import Foundation
import XCTest

@testable import ScreenwardCore

/// The guardian's dialog speaks the shield's languages, and always says what a guardian
/// without an authenticator can do.
final class GuardianDialogTextsTests: XCTestCase {
    func testTheDialogsTextsExistInEveryLanguage() {
        for language in ["en", "ko", "vi"] {
            let texts = GuardianDialogTexts.forLanguage(language)
            XCTAssertTrue(texts.notEnrolledHint.contains("screenward guardian enroll"), language)
            XCTAssertTrue(texts.explanation.contains("6"), language)
        }
        XCTAssertEqual(GuardianDialogTexts.forLanguage("de"), .english)
        XCTAssertNotEqual(GuardianDialogTexts.forLanguage("ko"), .english)
    }
}
