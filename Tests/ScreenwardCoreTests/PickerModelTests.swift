@_spi(Screenward) import FamilyControls
import Foundation
@_spi(Screenward) import ScreenwardCore
import XCTest

/// The activity picker's model: what it lists, how a search narrows it, and what a tick means.
final class PickerModelTests: XCTestCase {
    var table: CategoryTable {
        get throws {
            try CategoryTable.load(
                from: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                    .appendingPathComponent("data/categories.json"))
        }
    }

    func entry(_ id: String, _ name: String, _ categories: [String], noDisplay: Bool = false) -> DesktopEntry {
        DesktopEntry(id: id, name: name, iconName: "icon-\(id)", categories: categories, noDisplay: noDisplay, path: URL(fileURLWithPath: "/x/\(id)"))
    }

    func catalog(language: String = "en") throws -> PickerCatalog {
        let entries = ApplicationCatalog(entries: [
            entry("discord.desktop", "Discord", ["Network", "InstantMessaging"]),
            entry("chess.desktop", "Chess", ["Game", "BoardGame"]),
            entry("aisleriot.desktop", "Écarté Solitaire", ["Game", "CardGame"]),
            entry("firefox.desktop", "Firefox", ["Network", "WebBrowser"]),
            entry("ecrivain.desktop", "Écrivain", ["Office", "WordProcessor"]),
            entry("helper.desktop", "Helper", ["Utility"], noDisplay: true),
        ])
        let seen = [
            KnownApplication(token: "t1", publicID: "wmclass:Steam", displayName: "Steam", categories: ["Game"]),
            KnownApplication(token: "t2", publicID: "chess.desktop", displayName: "Old chess name", categories: ["Game"]),
            KnownApplication(token: "t3", publicID: "wmclass:Mystery", displayName: "Mystery"),
        ]
        return PickerCatalog(catalog: entries, seen: seen, categories: try table, language: language)
    }

    func testItListsInstalledAndSeenApplicationsByCategoryWithOtherLast() throws {
        let picker = try catalog()
        let nonEmpty = picker.groups.filter { !$0.applications.isEmpty }
        XCTAssertEqual(nonEmpty.map(\.categoryID), ["Social", "Game", "Network", "Office", "Other"])
        XCTAssertEqual(picker.groups.last?.categoryID, "Other", "Other comes last")
        XCTAssertEqual(picker.groups.count, 13, "every category of the table, so a whole one can be picked before its apps exist")
        // By name, ignoring case and accents; the catalog's entry wins over the ledger's name.
        XCTAssertEqual(nonEmpty[1].applications.map(\.name), ["Chess", "Écarté Solitaire", "Steam"])
        XCTAssertEqual(picker.application(id: "chess.desktop")?.icon, "icon-chess.desktop")
        XCTAssertEqual(picker.application(id: "wmclass:Mystery")?.categoryID, "Other")
        XCTAssertNil(picker.application(id: "helper.desktop"), "NoDisplay entries are not listed")
        XCTAssertEqual(picker.applicationCount, 7)
        XCTAssertEqual(try catalog(language: "ko").groups[1].title, "게임")
    }

    func testSearchNarrowsByNameIdOrCategoryIgnoringCaseAndAccents() throws {
        let picker = try catalog()
        XCTAssertEqual(picker.matching("").count, picker.groups.count)
        XCTAssertEqual(picker.matching("CHESS").flatMap(\.applications).map(\.id), ["chess.desktop"])
        XCTAssertEqual(picker.matching("ecri").flatMap(\.applications).map(\.id), ["ecrivain.desktop"], "accents are ignored")
        XCTAssertEqual(picker.matching("solitaire").flatMap(\.applications).map(\.id), ["aisleriot.desktop"])
        XCTAssertEqual(picker.matching("wmclass:ste").flatMap(\.applications).map(\.id), ["wmclass:Steam"], "the id matches too")
        XCTAssertEqual(picker.matching("fire fox").flatMap(\.applications).map(\.id), ["firefox.desktop"], "every word must match")
        // A category's name keeps all of it.
        let games = picker.matching("games")
        XCTAssertEqual(games.map(\.categoryID), ["Game"])
        XCTAssertEqual(games[0].applications.count, 3)
        XCTAssertEqual(picker.matching("nothing like this"), [])
    }

    func testATickedCategoryCoversItsApplicationsAndTheRequestNamesTheCategory() throws {
        let picker = try catalog()
        let chess = try XCTUnwrap(picker.application(id: "chess.desktop"))
        let discord = try XCTUnwrap(picker.application(id: "discord.desktop"))
        var choice = PickerChoice(SelectionRequest(applications: ["chess.desktop"], webDomains: ["example.com"]))
        XCTAssertTrue(choice.isTicked(chess))
        XCTAssertFalse(choice.isCoveredByCategory(chess))

        choice.set(category: "Game", ticked: true)
        XCTAssertTrue(choice.isCoveredByCategory(chess))
        choice.set(chess, ticked: false)
        XCTAssertTrue(choice.isTicked(chess), "a covered application cannot be unticked on its own")
        choice.set(discord, ticked: true)
        XCTAssertEqual(
            choice.request(in: picker),
            SelectionRequest(applications: ["discord.desktop"], categories: ["Game"], webDomains: ["example.com"]),
            "the category stands for chess; the domains the picker does not list are kept")
        XCTAssertEqual(PickerSummary.text(of: choice, in: picker), "Chosen: Games (all), Discord")

        choice.set(category: "Game", ticked: false)
        XCTAssertTrue(choice.isTicked(chess), "unticking the category gives back the application's own tick")
        XCTAssertEqual(choice.request(in: picker).applications, ["chess.desktop", "discord.desktop"])
        XCTAssertEqual(PickerSummary.text(of: PickerChoice(), in: picker), "Nothing chosen yet.")
    }

    func testTheSummaryNamesAFewAndCountsTheRest() throws {
        let picker = try catalog()
        let ids = ["discord.desktop", "chess.desktop", "aisleriot.desktop", "firefox.desktop", "wmclass:Steam", "wmclass:Mystery"]
        let choice = PickerChoice(SelectionRequest(applications: ids))
        XCTAssertEqual(PickerSummary.text(of: choice, in: picker), "Chosen: Discord, Chess, Écarté Solitaire, Steam and 2 more")
    }

    func testTheTraceLinesReadBackAsTheyWereWritten() {
        let lines = [
            PickerTraceLine.place("app old.desktop", .init(x: 1, y: 1, width: 1, height: 1), ticked: false),
            PickerTraceLine.shown(rows: 1),
            PickerTraceLine.place("button Done", .init(x: 300, y: 400, width: 60, height: 30)),
            PickerTraceLine.place("category Game", .init(x: 10, y: 20, width: 100, height: 18), ticked: true),
            PickerTraceLine.place("app chess.desktop", .init(x: 10, y: 40, width: 100, height: 30), ticked: false),
            PickerTraceLine.shown(rows: 2),
        ]
        XCTAssertEqual(PickerTraceLine.lastShownRows(in: lines), ["category Game", "app chess.desktop"])
        let chess = PickerTraceLine.lastPlace(of: "app chess.desktop", in: lines)
        XCTAssertEqual(chess?.place.centre.x, 60)
        XCTAssertEqual(chess?.place.centre.y, 55)
        XCTAssertEqual(chess?.ticked, false)
        XCTAssertEqual(PickerTraceLine.lastPlace(of: "category Game", in: lines)?.ticked, true)
        XCTAssertNil(PickerTraceLine.lastPlace(of: "button Done", in: lines)?.ticked)
    }
}
