import Foundation
import ManagedSettingsUI
import TestSupport
import XCTest

@testable import ScreenwardCore

final class ShieldDefaultsTests: XCTestCase {
    /// The file the project ships, read as a distribution would.
    var shipped: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("data/shield.json")
    }

    let firefox = ShieldSubject(name: "Firefox")

    func testTheShippedFileHasEveryTextInEnglishKoreanAndVietnamese() throws {
        let defaults = try ShieldDefaults.load(from: shipped)
        for language in ["ko", "vi"] {
            let translations = try TranslationCatalogs.compiled(language)
            for text in ShieldDefaults.Text.required {
                let english = try XCTUnwrap(defaults.texts[text], "\(text)")
                XCTAssertFalse(english.trimmingCharacters(in: .whitespaces).isEmpty)
                let translated = try XCTUnwrap(
                    translations.catalog.translation(of: english, context: text.rawValue),
                    "\(text) has no translation in po/\(language).po")
                if text != .primaryButton { XCTAssertNotEqual(translated, english, "\(text) in \(language)") }
            }
        }
        XCTAssertNil(defaults.texts[.secondaryButton], "the default shield has no secondary button")
        XCTAssertEqual(defaults.look.backgroundColor, ShieldColor(hex: "#1C1C1ECC"))
    }

    func testTheDataDirectoryFindsTheFile() throws {
        let defaults = try ShieldDefaults.load(environment: [
            "SCREENWARD_DATA_DIR": shipped.deletingLastPathComponent().path
        ])
        XCTAssertEqual(defaults, try ShieldDefaults.load(from: shipped))
        let empty = try makeTemporaryDirectory()
        let elsewhere = empty.appendingPathComponent("bin/screenward-agent")
        XCTAssertThrowsError(
            try ShieldDefaults.load(environment: ["SCREENWARD_DATA_DIR": empty.path], executable: elsewhere)
        ) {
            XCTAssertTrue("\($0)".contains("cannot find Screenward's data file shield.json"), "\($0)")
        }
    }

    func testTheLanguageComesFromTheLocaleWithEnglishAsFallback() throws {
        XCTAssertEqual(ShieldDefaults.language(fromEnvironment: ["LANG": "ko_KR.UTF-8"]), "ko")
        XCTAssertEqual(
            ShieldDefaults.language(fromEnvironment: ["LANG": "en_US.UTF-8", "LC_MESSAGES": "vi_VN.UTF-8"]), "vi")
        XCTAssertEqual(
            ShieldDefaults.language(fromEnvironment: ["LC_ALL": "ko_KR", "LC_MESSAGES": "vi_VN", "LANG": "de_DE"]), "ko"
        )
        XCTAssertEqual(ShieldDefaults.language(fromEnvironment: ["LC_ALL": "C"]), "en")
        XCTAssertEqual(ShieldDefaults.language(fromEnvironment: [:]), "en")

        let defaults = try ShieldDefaults.load(from: shipped)
        XCTAssertEqual(
            defaults.resolve(ShieldConfiguration(), for: firefox, language: "ko").primaryButtonLabel.text, "확인")
        XCTAssertEqual(
            defaults.resolve(ShieldConfiguration(), for: firefox, language: "vi").title.text,
            "Firefox đang bị giới hạn"
        )
        // A language the file lacks reads English.
        XCTAssertEqual(
            defaults.resolve(ShieldConfiguration(), for: firefox, language: "de").title.text, "Firefox is restricted")
    }

    func testPlaceholdersAreSubstitutedOnce() throws {
        XCTAssertEqual(
            ShieldDefaults.substitute("{app} in {category}", ["app": "VLC", "category": "Entertainment"]),
            "VLC in Entertainment")
        XCTAssertEqual(ShieldDefaults.substitute("{app}", ["app": "{category}", "category": "x"]), "{category}")
        XCTAssertEqual(ShieldDefaults.substitute("{app} {unknown} {", ["app": "A"]), "A {unknown} {")
        XCTAssertEqual(ShieldDefaults.substitute("no placeholders", [:]), "no placeholders")

        let defaults = try ShieldDefaults.load(from: shipped)
        let shield = defaults.resolve(
            ShieldConfiguration(), for: ShieldSubject(name: "Steam", categoryName: "게임"), language: "ko")
        XCTAssertEqual(
            shield.subtitle.text,
            "게임 카테고리에 제한이 걸려 있어서 "
                + "지금은 Steam에 접근할 수 없어요.")
        XCTAssertEqual(shield.windowTitle, "Steam (사용 제한)")
        for language in ["en", "ko", "vi"] {
            let resolved = defaults.resolve(
                ShieldConfiguration(), for: ShieldSubject(name: "Steam", categoryName: "Games"), language: language)
            for text in [
                resolved.title.text, resolved.subtitle.text, resolved.primaryButtonLabel.text, resolved.windowTitle,
            ] {
                XCTAssertFalse(text.contains("{"), "\(language): \(text)")
            }
            XCTAssertTrue(resolved.subtitle.text.contains("Games"), "\(language): \(resolved.subtitle.text)")
        }
    }

    func testAnAppsConfigurationIsMergedOverTheDefaults() throws {
        let defaults = try ShieldDefaults.load(from: shipped)
        let plain = defaults.resolve(ShieldConfiguration(), for: firefox, language: "en")
        XCTAssertEqual(plain.backgroundBlurStyle, defaults.look.backgroundBlurStyle)
        XCTAssertEqual(plain.backgroundColor, defaults.look.backgroundColor)
        XCTAssertEqual(plain.icon, defaults.look.icon)
        XCTAssertEqual(plain.title, .init(text: "Firefox is restricted", color: defaults.look.titleColor))
        XCTAssertEqual(plain.subtitle.color, defaults.look.subtitleColor)
        XCTAssertEqual(plain.primaryButtonLabel, .init(text: "OK", color: defaults.look.primaryButtonLabelColor))
        XCTAssertEqual(plain.primaryButtonBackgroundColor, defaults.look.primaryButtonBackgroundColor)
        XCTAssertNil(plain.secondaryButtonLabel, "no secondary label, no secondary button")

        let custom = ShieldConfiguration(
            backgroundBlurStyle: .light, title: .init(text: "Worklog: {app} stays shut", color: .black),
            secondaryButtonLabel: .init(text: "Ask a parent", color: .systemBlue))
        let merged = defaults.resolve(custom, for: firefox, language: "en")
        XCTAssertEqual(merged.backgroundBlurStyle, .light)
        XCTAssertEqual(
            merged.title, .init(text: "Worklog: {app} stays shut", color: .black), "an app's own text is shown as given"
        )
        XCTAssertEqual(merged.secondaryButtonLabel?.text, "Ask a parent")
        XCTAssertEqual(merged.backgroundColor, plain.backgroundColor)
        XCTAssertEqual(merged.subtitle, plain.subtitle)
        XCTAssertEqual(merged.primaryButtonLabel, plain.primaryButtonLabel)
        XCTAssertEqual(merged.icon, plain.icon)

        // The default configuration is complete, and merging it changes nothing.
        let complete = defaults.defaultConfiguration(for: firefox, language: "vi")
        XCTAssertEqual(
            defaults.resolve(complete, for: firefox, language: "vi"),
            defaults.resolve(ShieldConfiguration(), for: firefox, language: "vi"))
    }

    func testADistributionCanAddADefaultSecondaryButton() throws {
        var file = try JSONSerialization.jsonObject(with: Data(contentsOf: shipped)) as! [String: Any]
        var texts = file["texts"] as! [String: Any]
        texts["secondaryButton"] = "Ask for more time"
        file["texts"] = texts
        let url = try makeTemporaryDirectory().appendingPathComponent("shield.json")
        try JSONSerialization.data(withJSONObject: file).write(to: url)
        let defaults = try ShieldDefaults.load(from: url)
        // A text no catalog knows is shown as the file writes it, in every language.
        for language in ["en", "ko", "vi"] {
            XCTAssertEqual(
                defaults.resolve(ShieldConfiguration(), for: firefox, language: language).secondaryButtonLabel?.text,
                "Ask for more time")
        }
    }

    func testAMissingOrBrokenFileIsAClearError() throws {
        let directory = try makeTemporaryDirectory()
        func load(_ text: String) -> String {
            let url = directory.appendingPathComponent("shield-\(UUID().uuidString).json")
            try! Data(text.utf8).write(to: url)
            do {
                _ = try ShieldDefaults.load(from: url)
                return "loaded"
            } catch {
                return "\(error)"
            }
        }
        let shipped = try String(contentsOf: self.shipped, encoding: .utf8)

        XCTAssertThrowsError(try ShieldDefaults.load(from: directory.appendingPathComponent("absent.json"))) {
            XCTAssertTrue("\($0)".hasPrefix("cannot read the shield defaults"), "\($0)")
        }
        XCTAssertTrue(load("{ not json").hasPrefix("cannot read the shield defaults"))
        XCTAssertTrue(load("").hasPrefix("cannot read the shield defaults"))
        let badColor = load(shipped.replacingOccurrences(of: "\"#1C1C1ECC\"", with: "\"dark grey\""))
        XCTAssertTrue(badColor.contains("not a color") && badColor.contains("look.backgroundColor"), badColor)
        let badStyle = load(shipped.replacingOccurrences(of: "systemThickMaterialDark", with: "frosted"))
        XCTAssertTrue(badStyle.contains("backgroundBlurStyle"), badStyle)
        let noLook = load(#"{"texts": {}}"#)
        XCTAssertTrue(noLook.contains("missing 'look'"), noLook)
        let noButton = load(shipped.replacingOccurrences(of: "\"primaryButton\": \"OK\",", with: ""))
        XCTAssertTrue(noButton.contains("no text for 'primaryButton'"), noButton)
        let translated = load(shipped.replacingOccurrences(of: "\"OK\"", with: #"{"en": "OK", "ko": "확인"}"#))
        XCTAssertTrue(translated.contains("cannot read the shield defaults"), translated)
        let typo = load(shipped.replacingOccurrences(of: "\"{app} (restricted)\"", with: "\"{aap} (restricted)\""))
        XCTAssertTrue(typo.contains("unknown placeholder {aap}") && typo.contains("'windowTitle'"), typo)
        let unknownText = load(shipped.replacingOccurrences(of: "\"windowTitle\"", with: "\"windowTitel\""))
        XCTAssertTrue(unknownText.contains("unknown text 'windowTitel'"), unknownText)
        XCTAssertEqual(load(shipped), "loaded")
    }
}
