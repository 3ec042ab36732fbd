import Foundation
import XCTest

@testable import ScreenwardCore

final class CategoryTableTests: XCTestCase {
    /// The file the project ships, read as a distribution would.
    var shipped: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("data/categories.json")
    }

    func testTheShippedTableLoadsAndDecidesInOrder() throws {
        let table = try CategoryTable.load(from: shipped)
        XCTAssertEqual(
            table.category(desktopID: "discord.desktop", entryCategories: ["Network", "InstantMessaging"]), "Social")
        XCTAssertEqual(
            table.category(desktopID: "pidgin.desktop", entryCategories: ["Network", "InstantMessaging"]), "Social")
        XCTAssertEqual(
            table.category(
                desktopID: "org.gnome.Chess.desktop", entryCategories: ["GNOME", "GTK", "Game", "BoardGame"]), "Game")
        XCTAssertEqual(table.category(desktopID: "vlc.desktop", entryCategories: ["Video", "Player"]), "AudioVideo")
        XCTAssertEqual(
            table.category(desktopID: "firefox.desktop", entryCategories: ["Network", "WebBrowser"]), "Network")
        XCTAssertEqual(table.category(desktopID: nil, entryCategories: []), "Other")
        XCTAssertEqual(table.displayName(of: "Game", language: "ko"), "게임")
        XCTAssertEqual(table.displayName(of: "Game", language: "de"), "Games")
    }

    func testABrokenOrInconsistentTableIsAClearError() throws {
        let directory = try makeTemporaryDirectory()
        let broken = directory.appendingPathComponent("broken.json")
        try Data("{ not json".utf8).write(to: broken)
        XCTAssertThrowsError(try CategoryTable.load(from: broken)) {
            XCTAssertTrue("\($0)".contains("cannot read the category table"))
        }
        let inconsistent = directory.appendingPathComponent("inconsistent.json")
        try Data(
            #"""
            {"categories": [{"id": "Other", "name": "Other"}], "additionalCategories": {"Chat": "Social"}, \#
            "applications": {}}
            """#
            .utf8
        )
        .write(to: inconsistent)
        XCTAssertThrowsError(try CategoryTable.load(from: inconsistent)) {
            XCTAssertTrue("\($0)".contains("maps Chat to Social"))
        }
    }
}

final class WebsiteCategoryTableTests: XCTestCase {
    func testWebsitesHaveTheCategoryTheTableGivesThemAndOthersNone() throws {
        let shipped = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("data/categories.json")
        let table = try CategoryTable.load(from: shipped)
        XCTAssertEqual(table.category(ofWebsite: "youtube.com"), "AudioVideo")
        XCTAssertEqual(table.category(ofWebsite: "wikipedia.org"), "Education")
        XCTAssertNil(table.category(ofWebsite: "example.org"), "a website the table does not list has no category")

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("categories-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let base =
            #"""
            "categories": [{"id": "Other", "name": "Other"}, {"id": "Game", "name": "Games"}], \#
            "additionalCategories": {}, "applications": {}
            """#
        let older = folder.appendingPathComponent("older.json")
        try Data("{\(base)}".utf8).write(to: older)
        XCTAssertEqual(try CategoryTable.load(from: older).websites, [:], "a table from before websites has none")
        let international = folder.appendingPathComponent("idn.json")
        try Data("{\(base), \"websites\": {\"Spiele.Bücher.de\": \"Game\"}}".utf8).write(to: international)
        XCTAssertEqual(
            try CategoryTable.load(from: international).category(ofWebsite: "spiele.xn--bcher-kva.de"), "Game")
        let unknown = folder.appendingPathComponent("unknown.json")
        try Data("{\(base), \"websites\": {\"poki.com\": \"Fun\"}}".utf8).write(to: unknown)
        XCTAssertThrowsError(try CategoryTable.load(from: unknown)) {
            XCTAssertTrue("\($0)".contains("poki.com to Fun"), "\($0)")
        }
        let bad = folder.appendingPathComponent("bad.json")
        try Data("{\(base), \"websites\": {\"not a name\": \"Game\"}}".utf8).write(to: bad)
        XCTAssertThrowsError(try CategoryTable.load(from: bad)) {
            XCTAssertTrue("\($0)".contains("not a website's name"), "\($0)")
        }
    }
}
