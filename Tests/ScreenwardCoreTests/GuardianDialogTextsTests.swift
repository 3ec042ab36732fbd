import Foundation
import TestSupport
import XCTest

@testable import ScreenwardCore

/// The guardian's dialog speaks the shield's languages (po/), and always says what a guardian
/// without an authenticator can do.
final class GuardianDialogTextsTests: XCTestCase {
    func testTheDialogsTextsExistInEveryLanguage() throws {
        let english = GuardianDialogTexts.english
        let fields: [(String, String)] = [
            ("explanation", english.explanation), ("notEnrolledHint", english.notEnrolledHint),
            ("guardian", english.guardian), ("code", english.code), ("codePlaceholder", english.codePlaceholder),
            ("cancel", english.cancel), ("approve", english.approve), ("checking", english.checking),
            ("chooseGuardian", english.chooseGuardian), ("notACode", english.notACode),
        ]
        for language in ["ko", "vi"] {
            let catalog = try TranslationCatalogs.compiled(language).catalog
            for (field, text) in fields {
                let translated = try XCTUnwrap(
                    catalog.translation(of: text, context: "guardianDialog.\(field)"), "\(field) in \(language)")
                XCTAssertNotEqual(translated, text, "\(field) in \(language)")
            }
        }
        // As the agent reads them: the catalogs scripts/compile-translations.sh made.
        for language in ["en", "ko", "vi"] {
            let texts = GuardianDialogTexts.forLanguage(language)
            XCTAssertTrue(texts.notEnrolledHint.contains("screenward guardian enroll"), language)
            XCTAssertTrue(texts.explanation.contains("6"), language)
        }
        XCTAssertEqual(GuardianDialogTexts.forLanguage("de"), .english)
        XCTAssertNotEqual(
            GuardianDialogTexts.forLanguage("ko"), .english,
            "no Korean catalog beside the tests: run scripts/compile-translations.sh (scripts/test.sh does)")
    }
}
