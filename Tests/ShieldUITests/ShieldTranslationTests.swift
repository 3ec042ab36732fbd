import Foundation
import ScreenwardCore
import SessionHarness
import TestSupport
import X11Session
import XCTest

/// The shield speaks the session's language: in a made-up language whose every text reads
/// ⟦English⟧ (`PseudoLocale`) it shows no other text, and in Korean and Vietnamese none of the
/// English render's texts is left.
final class ShieldTranslationTests: ShieldUITestCase {
    func testEveryTextOfTheShieldGoesThroughTheTranslations() throws {
        let frame = ScreenRect(x: 100, y: 50, width: 800, height: 600)
        func shownTexts(_ language: String, _ environment: [String: String] = [:], screenshot name: String? = nil)
            throws -> [String]
        {
            let view = try ShieldView(
                display: session.display,
                arguments: [
                    "--language", language, "--app-name", "Game", "--category-name", "Games", "--frame",
                    frame.description,
                ],
                environment: environment)
            // All of them: the program ends its list with "texts end" (a pipe may hand over
            // the first lines before the rest).
            try waitUntil("the shield's texts") {
                self.connection.rootFrame(of: view.window) == frame && view.process.outputLines.contains("texts end")
            }
            if let name { try saveScreenshot(name) }
            return view.texts
        }
        let data: Set = ["Game", "Games"]
        let pseudo = try shownTexts(PseudoLocale.language, try PseudoLocale.environment())
        XCTAssertGreaterThanOrEqual(pseudo.count, 4, "title, subtitle, button, window title: \(pseudo)")
        for text in pseudo {
            XCTAssertEqual(PseudoLocale.untranslated(in: text, data: data), "", "not through the translations: \(text)")
        }
        let english = try shownTexts("en")
        for language in ["ko", "vi"] {
            let shown = try shownTexts(language, screenshot: "shield-\(language).png")
            XCTAssertEqual(shown.count, english.count, "\(language): \(shown)")
            for text in english where !PseudoLocale.untranslated(in: text, data: data).isEmpty {
                XCTAssertFalse(shown.contains(text), "\(language) shows the English \(text)")
            }
        }
    }

    /// The guardian's dialog at a child's desk (shieldview shows it as the agent does): in the
    /// pseudo-locale nothing outside the translations, in Korean and Vietnamese no English.
    func testEveryTextOfTheGuardiansDialogGoesThroughTheTranslations() throws {
        func shownTexts(_ language: String, _ environment: [String: String] = [:], screenshot name: String? = nil)
            throws -> [String]
        {
            let view = try ChildProcess(
                try ProjectPrograms.url(of: "screenward-shieldview"),
                ["--display", session.display, "--guardian-dialog", "--language", language, "--app-name", "Sam"],
                environment: environment)
            defer {
                view.closeInput()
                view.stop()
            }
            try waitUntil("the dialog's texts") { view.outputLines.contains("texts end") }
            Thread.sleep(forTimeInterval: 0.3)
            if let name { try saveScreenshot(name) }
            return view.outputLines.filter { $0.hasPrefix("text ") }.map { String($0.dropFirst(5)) }
        }
        let data: Set = ["Sam", "mum", "dad"]
        let pseudo = try shownTexts(PseudoLocale.language, try PseudoLocale.environment())
        XCTAssertGreaterThanOrEqual(pseudo.count, 7, "\(pseudo)")
        for text in pseudo {
            XCTAssertEqual(PseudoLocale.untranslated(in: text, data: data), "", "not through the translations: \(text)")
        }
        let english = try shownTexts("en")
        XCTAssertTrue(english.contains("Screenward: a guardian's approval"), "\(english)")
        for language in ["ko", "vi"] {
            let shown = try shownTexts(language, screenshot: "guardian-dialog-\(language).png")
            XCTAssertEqual(shown.count, english.count, "\(language): \(shown)")
            for text in english where !PseudoLocale.untranslated(in: text, data: data).isEmpty {
                XCTAssertFalse(shown.contains(text), "\(language) shows the English \(text)")
            }
        }
    }

    /// The screen, in $SCREENWARD_SCREENSHOTS (the README's) or the temporary folder.
    private func saveScreenshot(_ name: String) throws {
        let folder = ProcessInfo.processInfo.environment["SCREENWARD_SCREENSHOTS"] ?? NSTemporaryDirectory()
        let path = URL(fileURLWithPath: folder).appendingPathComponent(name).path
        let shot = try ChildProcess(
            URL(fileURLWithPath: "/usr/bin/import"), ["-window", "root", path],
            environment: ["DISPLAY": session.display])
        if shot.waitForExit(timeout: 10) == 0 { print("screenshot: \(path)") }
    }
}
