import Foundation
import TestSupport
import XCTest

/// The translations' sources (po/) are the texts Screenward shows: the template is what the
/// data files and the sources' `texts("…", context:)` calls make (scripts/update-translations.sh),
/// every language translates every text, and each translation keeps the text's placeholders.
final class TranslationSourcesTests: XCTestCase {
    private let root = TranslationCatalogs.sourceRoot

    func testTheTemplateIsTheSourcesTextsAndEveryLanguageTranslatesThem() throws {
        _ = try requireProgram("xgettext", package: "gettext")
        _ = try requireProgram("jq", package: "jq")
        let check = Process()
        check.executableURL = root.appendingPathComponent("scripts/update-translations.sh")
        check.arguments = ["--check"]
        let errors = Pipe()
        check.standardError = errors
        check.standardOutput = FileHandle.nullDevice
        try check.run()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        check.waitUntilExit()
        XCTAssertEqual(check.terminationStatus, 0, said)
    }

    func testEveryTranslationKeepsItsTextsPlaceholders() throws {
        let languages = try String(contentsOf: root.appendingPathComponent("po/LINGUAS"), encoding: .utf8)
            .split(whereSeparator: \.isWhitespace).map(String.init)
        XCTAssertEqual(Set(languages), ["ko", "vi"])
        for language in languages {
            let entries = try POFile.entries(of: root.appendingPathComponent("po/\(language).po"))
            XCTAssertGreaterThan(entries.count, 100)
            for entry in entries {
                XCTAssertEqual(
                    Self.placeholders(entry.translation), Self.placeholders(entry.text),
                    "po/\(language).po: \(entry.context ?? "")|\(entry.text) → \(entry.translation)")
            }
        }
    }

    static func placeholders(_ text: String) -> [String] {
        let pattern = try! NSRegularExpression(pattern: "\\{[A-Za-z]+\\}")
        return pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).map {
            String(text[Range($0.range, in: text)!])
        }.sorted()
    }
}
