import Foundation
import ManagedSettingsUI
import XCTest

final class ShieldConfigurationTests: XCTestCase {
    func roundTrip<Value: Codable & Equatable>(_ value: Value, file: StaticString = #filePath, line: UInt = #line)
        throws
    {
        let data = try JSONEncoder().encode(value)
        XCTAssertEqual(try JSONDecoder().decode(Value.self, from: data), value, file: file, line: line)
    }

    func testAFullConfigurationSurvivesJSON() throws {
        let full = ShieldConfiguration(
            backgroundBlurStyle: .systemUltraThinMaterialDark,
            backgroundColor: ShieldColor(red: 0.1, green: 0.2, blue: 0.3, alpha: 0.4),
            icon: ShieldIcon(contentsOfFile: "/usr/share/pixmaps/worklog.png"),
            title: .init(text: "Worklog says stop", color: .white),
            subtitle: .init(text: "Back to work 🙂", color: .lightGray),
            primaryButtonLabel: .init(text: "OK", color: .white),
            primaryButtonBackgroundColor: .systemBlue,
            secondaryButtonLabel: .init(text: "Ask for more time", color: .systemBlue))
        try roundTrip(full)
        try roundTrip(ShieldConfiguration(icon: ShieldIcon(systemName: "appointment-soon")))
        try roundTrip(ShieldConfiguration())
        for style in ShieldBlurStyle.allCases { try roundTrip(ShieldConfiguration(backgroundBlurStyle: style)) }
    }

    func testTheEmptyConfigurationLeavesEveryFieldToTheDefaults() throws {
        let empty = ShieldConfiguration()
        XCTAssertNil(empty.backgroundBlurStyle)
        XCTAssertNil(empty.backgroundColor)
        XCTAssertNil(empty.icon)
        XCTAssertNil(empty.title)
        XCTAssertNil(empty.subtitle)
        XCTAssertNil(empty.primaryButtonLabel)
        XCTAssertNil(empty.primaryButtonBackgroundColor)
        XCTAssertNil(empty.secondaryButtonLabel)
        XCTAssertEqual(String(decoding: try JSONEncoder().encode(empty), as: UTF8.self), "{}")
    }

    func testColorsParseHexAndClamp() throws {
        XCTAssertEqual(ShieldColor(hex: "#FF8000"), ShieldColor(red: 1, green: 128.0 / 255, blue: 0))
        XCTAssertEqual(ShieldColor(hex: "ff800080")?.alpha, 128.0 / 255)
        XCTAssertEqual(ShieldColor(hex: "#fff"), .white)
        XCTAssertEqual(ShieldColor(hex: "#0000"), .clear)
        for bad in ["", "#", "#12345", "#GGGGGG", "red", "#1234567890"] { XCTAssertNil(ShieldColor(hex: bad), bad) }
        XCTAssertEqual(ShieldColor(hex: "#1C1C1ECC")?.hexString, "#1C1C1ECC")
        XCTAssertEqual(ShieldColor.systemBlue.hexString, "#007AFF")
        XCTAssertEqual(ShieldColor(red: 2, green: -1, blue: .nan, alpha: 3), ShieldColor(red: 1, green: 0, blue: 0))
        XCTAssertEqual(
            try JSONDecoder().decode(ShieldColor.self, from: Data(##""#0A84FF""##.utf8)), ShieldColor(hex: "#0A84FF"))
        XCTAssertThrowsError(try JSONDecoder().decode(ShieldColor.self, from: Data(#""blue""#.utf8))) {
            XCTAssertTrue("\($0)".contains("not a color"))
        }
        try roundTrip(ShieldColor(red: 0.123456789, green: 1.0 / 3, blue: 0.5, alpha: 0.7))
    }

    func testIconsAndBlurStylesEncodeAsTheDataFilesWriteThem() throws {
        XCTAssertEqual(
            String(decoding: try JSONEncoder().encode(ShieldIcon.themed(name: "firefox")), as: UTF8.self),
            #"{"iconName":"firefox"}"#)
        XCTAssertEqual(
            try JSONDecoder().decode(ShieldIcon.self, from: Data(#"{"file": "/tmp/a.png"}"#.utf8)),
            .file(path: "/tmp/a.png"))
        XCTAssertThrowsError(try JSONDecoder().decode(ShieldIcon.self, from: Data("{}".utf8)))
        XCTAssertEqual(ShieldBlurStyle.allCases.count, 20)
        XCTAssertEqual(ShieldBlurStyle.systemMaterialDark.appearance, .dark)
        XCTAssertEqual(ShieldBlurStyle.regular.appearance, .automatic)
        XCTAssertLessThan(
            ShieldBlurStyle.systemUltraThinMaterial.thickness, ShieldBlurStyle.systemChromeMaterial.thickness)
        XCTAssertGreaterThan(ShieldBlurStyle.light.tint(dark: true).red, 0.9)
        XCTAssertLessThan(ShieldBlurStyle.systemMaterial.tint(dark: true).red, 0.2)
    }

    func testTheDefaultDataSourceAnswersTheDefaultLook() {
        let source = ShieldConfigurationDataSource()
        let app = Application(bundleIdentifier: "firefox.desktop")
        let category = ActivityCategory(token: ActivityCategoryToken(opaqueValueForTests: "games"))
        let domain = WebDomain(domain: "example.com")
        XCTAssertEqual(source.configuration(shielding: app), ShieldConfiguration())
        XCTAssertEqual(source.configuration(shielding: app, in: category), ShieldConfiguration())
        XCTAssertEqual(source.configuration(shielding: domain), ShieldConfiguration())
        XCTAssertEqual(source.configuration(shielding: domain, in: category), ShieldConfiguration())
    }

    func testASubclassedDataSourceIsCalledThroughTheBaseClass() {
        final class Worklog: ShieldConfigurationDataSource {
            override func configuration(shielding application: Application) -> ShieldConfiguration {
                ShieldConfiguration(title: .init(text: "No \(application.bundleIdentifier ?? "?")", color: .red))
            }
        }
        let source: ShieldConfigurationDataSource = Worklog()
        XCTAssertEqual(
            source.configuration(shielding: Application(bundleIdentifier: "x.desktop")).title?.text, "No x.desktop")
        XCTAssertNil(source.configuration(shielding: WebDomain(domain: "example.com")).title)
    }

    func testTheDefaultActionDelegateClosesOnPrimaryAndDoesNothingOnSecondary() {
        let delegate = ShieldActionDelegate()
        var answers: [ShieldActionResponse] = []
        for action in ShieldAction.allCases {
            delegate.handle(action: action, for: ApplicationToken(opaqueValueForTests: "app")) { answers.append($0) }
            delegate.handle(action: action, for: WebDomainToken(opaqueValueForTests: "web")) { answers.append($0) }
            delegate.handle(action: action, for: ActivityCategoryToken(opaqueValueForTests: "cat")) {
                answers.append($0)
            }
        }
        XCTAssertEqual(answers, [.close, .close, .close, .none, .none, .none])
    }

    func testActionsAndResponsesEncodeByName() throws {
        XCTAssertEqual(
            String(decoding: try JSONEncoder().encode([ShieldActionResponse.defer]), as: UTF8.self), #"["defer"]"#)
        for response in ShieldActionResponse.allCases { try roundTrip(response) }
        for action in ShieldAction.allCases { try roundTrip(action) }
    }
}

extension Token {
    /// A token for tests: decoded, as an app receives one.
    init(opaqueValueForTests value: String) {
        self = try! JSONDecoder().decode(Token.self, from: JSONEncoder().encode(value))
    }
}
