import Foundation
import XCTest

@testable import ScreenwardCore

final class DesktopEntryTests: XCTestCase {
    private let path = URL(fileURLWithPath: "/test/applications/app.desktop")

    private func parse(_ contents: String, locale: String = "C") throws -> DesktopEntry? {
        try DesktopEntry.parse(contents: contents, id: "app.desktop", path: path, locale: locale)
    }

    private func parseError(_ contents: String) -> DesktopEntryError? {
        do {
            _ = try parse(contents)
            return nil
        } catch {
            return error as? DesktopEntryError
        }
    }

    func testReadsTheFieldsOfAnApplication() throws {
        let entry = try XCTUnwrap(
            parse(
                """
                [Desktop Entry]
                Type=Application
                Name=Text Editor
                Icon=org.gnome.TextEditor
                Categories=GNOME;GTK;Utility;TextEditor;
                StartupWMClass=gnome-text-editor
                Exec=gnome-text-editor %U
                TryExec=gnome-text-editor
                NoDisplay=true
                """))
        XCTAssertEqual(
            entry,
            DesktopEntry(
                id: "app.desktop", name: "Text Editor", iconName: "org.gnome.TextEditor",
                categories: ["GNOME", "GTK", "Utility", "TextEditor"], startupWMClass: "gnome-text-editor",
                exec: "gnome-text-editor %U", tryExec: "gnome-text-editor", noDisplay: true, path: path))
    }

    func testOptionalFieldsDefaultToAbsent() throws {
        let entry = try XCTUnwrap(parse(appEntry(name: "Bare", extra: "Icon=\n")))
        XCTAssertNil(entry.iconName, "an empty value means no icon")
        XCTAssertEqual(entry.categories, [])
        XCTAssertNil(entry.startupWMClass)
        XCTAssertNil(entry.exec)
        XCTAssertNil(entry.tryExec)
        XCTAssertFalse(entry.noDisplay)
    }

    func testLocalizedNameFollowsTheSpecMatchingOrder() throws {
        let all = """
            [Desktop Entry]
            Type=Application
            Name=Plain
            Name[sr]=sr
            Name[sr@latin]=sr@latin
            Name[sr_RS]=sr_RS
            Name[sr_RS@latin]=sr_RS@latin
            Name[de]=
            """
        let cases: [(locale: String, expected: String)] = [
            ("sr_RS.UTF-8@latin", "sr_RS@latin"),
            ("sr_RS@latin", "sr_RS@latin"),
            ("sr_RS.UTF-8", "sr_RS"),
            ("sr_ME@latin", "sr@latin"),
            ("sr_ME.UTF-8", "sr"),
            ("sr", "sr"),
            ("fr_FR.UTF-8", "Plain"),
            ("de_DE", "Plain"),  // An empty translation is no translation.
            ("C", "Plain"),
            ("C.UTF-8", "Plain"),
            ("POSIX", "Plain"),
            ("", "Plain"),
        ]
        for (locale, expected) in cases {
            XCTAssertEqual(try parse(all, locale: locale)?.name, expected, "locale \(locale)")
        }
        // Without a lang_COUNTRY key, lang@MODIFIER comes before lang.
        let noCountry = all.replacingOccurrences(of: "Name[sr_RS]=sr_RS\n", with: "")
            .replacingOccurrences(of: "Name[sr_RS@latin]=sr_RS@latin\n", with: "")
        XCTAssertEqual(try parse(noCountry, locale: "sr_RS@latin")?.name, "sr@latin")
        XCTAssertEqual(try parse(noCountry, locale: "sr_RS")?.name, "sr")
    }

    func testLocaleComesFromLcAllThenLcMessagesThenLang() {
        let locale = DesktopEntry.locale(fromEnvironment:)
        XCTAssertEqual(locale(["LC_ALL": "fr_FR", "LC_MESSAGES": "de_DE", "LANG": "it_IT"]), "fr_FR")
        XCTAssertEqual(locale(["LC_ALL": "", "LC_MESSAGES": "de_DE", "LANG": "it_IT"]), "de_DE")
        XCTAssertEqual(locale(["LANG": "it_IT.UTF-8"]), "it_IT.UTF-8")
        XCTAssertEqual(locale([:]), "C")
    }

    func testUndoesEscapes() throws {
        let entry = try XCTUnwrap(parse(appEntry(name: #"\sA\tB\nC\rD\\E\qF"#)))
        XCTAssertEqual(entry.name, " A\tB\nC\rD\\E\\qF", "known escapes undone, unknown ones kept")
    }

    func testSplitsListsAtUnescapedSemicolons() throws {
        let entry = try XCTUnwrap(parse(appEntry(name: "L", extra: #"Categories=A;B\;C;;D\sE;"#)))
        XCTAssertEqual(entry.categories, ["A", "B;C", "D E"])
    }

    func testOnlyTheDesktopEntryGroupCounts() throws {
        let entry = try XCTUnwrap(
            parse(
                """
                # A comment before anything
                [Other Group]
                Name=Wrong
                Exec=wrong

                  # An indented comment

                [Desktop Entry]
                Type = Application
                Name =  Right\t
                # Name=Commented out
                Exec=right
                a stray line without an equals sign
                [Desktop Action new-window]
                Name=New Window
                Exec=right --new-window
                """))
        XCTAssertEqual(entry.name, "Right")
        XCTAssertEqual(entry.exec, "right")
    }

    func testAcceptsWindowsLineEndings() throws {
        let entry = try XCTUnwrap(parse("[Desktop Entry]\r\nType=Application\r\nName=CRLF\r\nIcon=crlf\r\n"))
        XCTAssertEqual(entry.name, "CRLF")
        XCTAssertEqual(entry.iconName, "crlf")
    }

    func testHiddenEntriesAreNil() throws {
        XCTAssertNil(try parse(appEntry(name: "Gone", extra: "Hidden=true\n")))
        // A mask needs nothing but the flag, so it must not be rejected for lacking a Name.
        XCTAssertNil(try parse("[Desktop Entry]\nHidden=true\n"))
        XCTAssertNotNil(try parse(appEntry(name: "Kept", extra: "Hidden=false\n")))
    }

    func testEntriesOfOtherTypesAreNil() throws {
        XCTAssertNil(try parse("[Desktop Entry]\nType=Link\nName=A link\nURL=https://example.org\n"))
        XCTAssertNil(try parse("[Desktop Entry]\nType=Directory\nName=A folder\n"))
        XCTAssertNil(try parse("[Desktop Entry]\nName=No type\n"))
    }

    func testAFileWithoutTheGroupThrowsWithFileAndLine() throws {
        let error = try XCTUnwrap(parseError("# comment\n\nName=Foo\nType=Application\n"))
        XCTAssertEqual(error, DesktopEntryError(file: path.path, line: 3, problem: .missingDesktopEntryGroup))
        XCTAssertEqual(error.description, "/test/applications/app.desktop:3: no [Desktop Entry] group")
        XCTAssertEqual(parseError("")?.problem, .missingDesktopEntryGroup)
        XCTAssertEqual(parseError("[Desktop Entry")?.problem, .missingDesktopEntryGroup)
    }

    func testAnApplicationWithoutANameThrows() throws {
        let error = try XCTUnwrap(parseError("\n[Desktop Entry]\nType=Application\nName[de]=Nur Deutsch\n"))
        XCTAssertEqual(error, DesktopEntryError(file: path.path, line: 2, problem: .missingName))
        XCTAssertTrue(error.description.hasPrefix("/test/applications/app.desktop:2:"), error.description)
        XCTAssertThrowsError(
            try parse("[Desktop Entry]\nType=Application\nName[de]=Nur Deutsch\n", locale: "de"),
            "a translation does not replace the Name")
    }

    func testInvalidUTF8IsReplacedNotFatal() throws {
        let directory = try makeTemporaryDirectory()
        var bytes = Data("[Desktop Entry]\nType=Application\nName=Caf".utf8)
        bytes += [0xC3, 0x28, 0xFF]  // A broken two-byte sequence and a byte never valid in UTF-8.
        bytes += Data("\nName[de]=\u{FE}\nIcon=cafe\n".utf8)
        let file = try write(bytes, "cafe.desktop", in: directory)
        let entry = try XCTUnwrap(DesktopEntry.load(file: file, id: "cafe.desktop", locale: "C"))
        XCTAssertEqual(entry.name, "Caf\u{FFFD}(\u{FFFD}")
        XCTAssertEqual(entry.iconName, "cafe")
        XCTAssertEqual(entry.path, file)
    }

    func testFilesOverOneMebibyteAreRefused() throws {
        let directory = try makeTemporaryDirectory()
        let header = appEntry(name: "Huge") + "#"
        let twoMiB = header + String(repeating: "x", count: 2 * 1024 * 1024 - header.utf8.count)
        let file = try write(twoMiB, "huge.desktop", in: directory)
        XCTAssertThrowsError(try DesktopEntry.load(file: file, id: "huge.desktop", locale: "C")) { error in
            XCTAssertEqual(
                error as? DesktopEntryError,
                DesktopEntryError(
                    file: file.path, line: 0, problem: .fileTooLarge(limit: 1 << 20)))
        }
        // Exactly at the limit is still a file we read.
        let atLimit = header + String(repeating: "x", count: DesktopEntry.maximumFileSize - header.utf8.count)
        let edge = try write(atLimit, "edge.desktop", in: directory)
        XCTAssertEqual(try DesktopEntry.load(file: edge, id: "edge.desktop", locale: "C")?.name, "Huge")
    }

    func testHugeLinesAndGarbageDoNotCrash() throws {
        let longName = String(repeating: "n", count: 2 * 1024 * 1024)
        XCTAssertEqual(try parse(appEntry(name: longName))?.name.count, longName.count)

        // Deterministic noise: escapes, brackets, separators, newlines and stray bytes.
        var state: UInt64 = 0x5EED
        let alphabet = Array("[]=;\\\nxyzDesktop Entry#\r\u{0}é\u{FFFD}")
        for _ in 0..<200 {
            var text = "[Desktop Entry]\nType=Application\n"
            for _ in 0..<200 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                text.append(alphabet[Int(state >> 33) % alphabet.count])
            }
            _ = try? parse(text, locale: "sr_RS@latin")
        }
    }

    func testLoadRefusesWhatIsNotARegularFileAndFollowsSymlinks() throws {
        let directory = try makeTemporaryDirectory()
        let folder = directory.appendingPathComponent("folder.desktop")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        XCTAssertThrowsError(try DesktopEntry.load(file: folder, id: "folder.desktop", locale: "C")) { error in
            XCTAssertEqual((error as? DesktopEntryError)?.problem, .notARegularFile)
        }

        let target = try write(appEntry(name: "Linked"), "real/linked.desktop", in: directory)
        let link = directory.appendingPathComponent("linked.desktop")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        XCTAssertEqual(try DesktopEntry.load(file: link, id: "linked.desktop", locale: "C")?.name, "Linked")

        let missing = directory.appendingPathComponent("missing.desktop")
        XCTAssertThrowsError(try DesktopEntry.load(file: missing, id: "missing.desktop", locale: "C"))
    }
}
