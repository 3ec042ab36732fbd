import Foundation
import XCTest
@testable import ScreenwardCore

final class CategoryTableTests: XCTestCase {
    /// The file the project ships, read as a distribution would.
    var shipped: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("data/categories.json")
    }

    func testTheShippedTableLoadsAndDecidesInOrder() throws {
        let table = try CategoryTable.load(from: shipped)
        XCTAssertEqual(table.category(desktopID: "discord.desktop", entryCategories: ["Network", "InstantMessaging"]), "Social")
        XCTAssertEqual(table.category(desktopID: "pidgin.desktop", entryCategories: ["Network", "InstantMessaging"]), "Social")
        XCTAssertEqual(table.category(desktopID: "org.gnome.Chess.desktop", entryCategories: ["GNOME", "GTK", "Game", "BoardGame"]), "Game")
        XCTAssertEqual(table.category(desktopID: "vlc.desktop", entryCategories: ["Video", "Player"]), "AudioVideo")
        XCTAssertEqual(table.category(desktopID: "firefox.desktop", entryCategories: ["Network", "WebBrowser"]), "Network")
        XCTAssertEqual(table.category(desktopID: nil, entryCategories: []), "Other")
        XCTAssertEqual(table.displayName(of: "Game", language: "ko"), "게임")
        XCTAssertEqual(table.displayName(of: "Game", language: "de"), "Games")
    }

    func testABrokenOrInconsistentTableIsAClearError() throws {
        let directory = try makeTemporaryDirectory()
        let broken = directory.appendingPathComponent("broken.json")
        try Data("{ not json".utf8).write(to: broken)
        XCTAssertThrowsError(try CategoryTable.load(from: broken)) { XCTAssertTrue("\($0)".contains("cannot read the category table")) }
        let inconsistent = directory.appendingPathComponent("inconsistent.json")
        try Data(#"{"categories": [{"id": "Other", "names": {}}], "additionalCategories": {"Chat": "Social"}, "applications": {}}"#.utf8)
            .write(to: inconsistent)
        XCTAssertThrowsError(try CategoryTable.load(from: inconsistent)) { XCTAssertTrue("\($0)".contains("maps Chat to Social")) }
    }
}
