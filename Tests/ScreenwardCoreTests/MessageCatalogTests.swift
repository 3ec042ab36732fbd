import Foundation
import TestSupport
import XCTest

@testable import ScreenwardCore

/// gettext's catalogs, read in plain Swift: what msgfmt writes (either byte order), a context,
/// a missing translation, and files that are not catalogs.
final class MessageCatalogTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("catalogs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private func po(_ body: String, header: String = "") throws -> URL {
        let url = folder.appendingPathComponent("test-\(UUID().uuidString).po")
        try """
        msgid ""
        msgstr ""
        "Content-Type: text/plain; charset=UTF-8\\n"
        \(header)
        \(body)
        """.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    func testWhatMsgfmtWritesIsRead() throws {
        let source = try po(
            """
            msgid "Close {app}"
            msgstr "{app} 닫기"

            msgctxt "title"
            msgid "OK"
            msgstr "확인"

            msgid "Untranslated"
            msgstr ""

            msgid "{count} minute"
            msgid_plural "{count} minutes"
            msgstr[0] "{count}분"
            """, header: "\"Plural-Forms: nplurals=1; plural=0;\\n\"\n")
        let mo = try TranslationCatalogs.compile(source, language: "ko", into: folder)
        let catalog = try MessageCatalog(contentsOf: mo)
        XCTAssertEqual(catalog.translation(of: "Close {app}"), "{app} 닫기")
        XCTAssertEqual(catalog.translation(of: "OK", context: "title"), "확인")
        XCTAssertNil(catalog.translation(of: "OK"), "a context is part of the key")
        XCTAssertNil(catalog.translation(of: "Untranslated"))
        XCTAssertNil(catalog.translation(of: "{count} minute"), "plural entries are left out")
        XCTAssertEqual(catalog.messages.count, 2)

        let translations = Translations.load(language: "ko", directories: [folder]).translations
        XCTAssertEqual(translations("Close {app}", ["app": "Steam"]), "Steam 닫기")
        XCTAssertEqual(translations("Not in the catalog {app}", ["app": "Steam"]), "Not in the catalog Steam")
    }

    func testABigEndianCatalogIsReadToo() throws {
        let source = try po("msgid \"Downtime\"\nmsgstr \"Giờ nghỉ\"\n")
        let mo = folder.appendingPathComponent("big.mo")
        let msgfmt = try Process.run(
            URL(fileURLWithPath: "/usr/bin/msgfmt"), arguments: ["--endianness=big", "-o", mo.path, source.path])
        msgfmt.waitUntilExit()
        XCTAssertEqual(msgfmt.terminationStatus, 0)
        XCTAssertEqual(Array(try Data(contentsOf: mo).prefix(4)), [0x95, 0x04, 0x12, 0xDE])
        XCTAssertEqual(try MessageCatalog(contentsOf: mo).translation(of: "Downtime"), "Giờ nghỉ")
    }

    /// A damaged or hostile file is refused with what is wrong; the texts are then shown in English.
    func testAFileThatIsNotACatalogIsRefusedNeverACrash() throws {
        let good = Array(
            try Data(
                contentsOf: try TranslationCatalogs.compile(
                    try po("msgid \"Close\"\nmsgstr \"Đóng\"\n"), language: "vi", into: folder)))
        func refusal(_ bytes: [UInt8]) -> String? {
            do {
                _ = try MessageCatalog(bytes: bytes)
                return nil
            } catch {
                return "\(error)"
            }
        }
        XCTAssertNil(refusal(good))
        XCTAssertEqual(refusal([]), "the file is not a message catalog: it is 0 bytes long")
        XCTAssertEqual(
            refusal(Array("<html>not a catalog at all</html>".utf8)),
            "the file is not a message catalog: its first bytes are not gettext's magic number")
        // Every truncation of a real catalog, and offsets pointing anywhere.
        for length in stride(from: 0, to: good.count, by: 3) {
            _ = refusal(Array(good.prefix(length)))
        }
        var pointing = good
        for byte in [0x00, 0x7F, 0xFF] as [UInt8] {
            for index in 8..<28 {
                pointing[index] = byte
                _ = refusal(pointing)
            }
            pointing = good
        }
        var outside = good
        outside[12...15] = [0xF0, 0xFF, 0xFF, 0x0F]
        XCTAssertNotNil(refusal(outside))

        let broken = folder.appendingPathComponent("vi/LC_MESSAGES/screenward.mo")
        try Data(good.prefix(30)).write(to: broken)
        let loaded = Translations.load(language: "vi", directories: [folder])
        XCTAssertEqual(loaded.translations("Close"), "Close", "English when the catalog cannot be read")
        XCTAssertNotNil(loaded.problem)
    }

    func testTheLanguageIsGettexts() {
        XCTAssertEqual(Translations.language(fromEnvironment: ["LANG": "ko_KR.UTF-8"]), "ko")
        XCTAssertEqual(Translations.language(fromEnvironment: ["LANG": "en_US.UTF-8", "LANGUAGE": "vi:en"]), "vi")
        XCTAssertEqual(
            Translations.language(fromEnvironment: ["LANG": "C", "LANGUAGE": "vi"]), "en",
            "LANGUAGE counts only beside a locale that is not C, as in gettext")
        XCTAssertEqual(Translations.language(fromEnvironment: [:]), "en")
    }

    /// A language names a folder of catalogs: nothing but two or three letters is taken for one,
    /// whatever a session's environment (or a child's tray) says.
    func testOnlyALanguageCodeIsALanguage() throws {
        for hostile in ["../../tmp/x", "ko/../../etc", "x/y", "k", "kore", "KO1", "", "ko\u{0}"] {
            XCTAssertFalse(Translations.isLanguageCode(hostile), hostile)
        }
        XCTAssertTrue(Translations.isLanguageCode("ko"))
        XCTAssertTrue(Translations.isLanguageCode("fil"))
        XCTAssertEqual(Translations.language(fromEnvironment: ["LANG": "ko_KR.UTF-8", "LANGUAGE": "x/y:vi"]), "ko")
        XCTAssertEqual(Translations.language(fromEnvironment: ["LANG": "a/b_CD.UTF-8"]), "en")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: folder) }
        let loaded = Translations.load(language: "../vi", directories: [folder])
        XCTAssertEqual(loaded.translations.language, "en")
    }
}
