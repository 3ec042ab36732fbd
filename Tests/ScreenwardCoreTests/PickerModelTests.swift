@_spi(Screenward) import FamilyControls
import Foundation
@_spi(Screenward) import ScreenwardCore
import XCTest

/// The activity picker's model: what it lists, how a search narrows it, and what a tick means.
final class PickerModelTests: XCTestCase {
    var table: CategoryTable {
        get throws {
            try CategoryTable.load(
                from: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                    .deletingLastPathComponent()
                    .appendingPathComponent("data/categories.json"))
        }
    }

    func entry(_ id: String, _ name: String, _ categories: [String], noDisplay: Bool = false) -> DesktopEntry {
        DesktopEntry(
            id: id, name: name, iconName: "icon-\(id)", categories: categories, noDisplay: noDisplay,
            path: URL(fileURLWithPath: "/x/\(id)"))
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
            KnownApplication(
                token: "t2", publicID: "chess.desktop", displayName: "Old chess name", categories: ["Game"]),
            KnownApplication(token: "t3", publicID: "wmclass:Mystery", displayName: "Mystery"),
        ]
        return PickerCatalog(
            catalog: entries, seen: seen, websites: ["reddit.com", "xn--bcher-kva.de", "example.org", "reddit.com"],
            categories: try table,
            language: language)
    }

    func testItListsInstalledAndSeenApplicationsByCategoryWithOtherLast() throws {
        let picker = try catalog()
        let nonEmpty = picker.groups.filter { !$0.applications.isEmpty }
        XCTAssertEqual(nonEmpty.map(\.categoryID), ["Social", "Game", "Network", "Office", "Other"])
        XCTAssertEqual(picker.groups.last?.categoryID, "Other", "Other comes last")
        XCTAssertEqual(
            picker.groups.count, 13, "every category of the table, so a whole one can be picked before its apps exist")
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
        XCTAssertEqual(
            picker.matching("ecri").flatMap(\.applications).map(\.id), ["ecrivain.desktop"], "accents are ignored")
        XCTAssertEqual(picker.matching("solitaire").flatMap(\.applications).map(\.id), ["aisleriot.desktop"])
        XCTAssertEqual(
            picker.matching("wmclass:ste").flatMap(\.applications).map(\.id), ["wmclass:Steam"], "the id matches too")
        XCTAssertEqual(
            picker.matching("fire fox").flatMap(\.applications).map(\.id), ["firefox.desktop"], "every word must match")
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
        let ids = [
            "discord.desktop", "chess.desktop", "aisleriot.desktop", "firefox.desktop", "wmclass:Steam",
            "wmclass:Mystery",
        ]
        let choice = PickerChoice(SelectionRequest(applications: ids))
        XCTAssertEqual(
            PickerSummary.text(of: choice, in: picker), "Chosen: Discord, Chess, Écarté Solitaire, Steam and 2 more")
    }

    /// Websites seen are a section of their own, by name as a person reads it; each keeps the
    /// category the table gives it (none for most), which a search by category name finds.
    func testItListsTheWebsitesSeenByNameAndSearchFindsThemByNameOrCategory() throws {
        let picker = try catalog()
        XCTAssertEqual(
            picker.websites.map(\.name), ["bücher.de", "example.org", "reddit.com"], "once each, by readable name")
        XCTAssertEqual(picker.website(domain: "reddit.com")?.categoryID, "Social")
        XCTAssertNil(
            picker.website(domain: "example.org")?.categoryID, "a website the table does not name has no category")
        XCTAssertEqual(picker.matchingWebsites("BÜCH").map(\.domain), ["xn--bcher-kva.de"], "by its readable name")
        XCTAssertEqual(picker.matchingWebsites("xn--bcher").map(\.domain), ["xn--bcher-kva.de"], "and its ASCII one")
        XCTAssertEqual(picker.matchingWebsites("social").map(\.domain), ["reddit.com"], "by its category's name")
        XCTAssertEqual(picker.matchingWebsites("").count, 3)
        XCTAssertEqual(picker.matchingWebsites("nothing like this"), [])
    }

    /// What a person types is a website when it is a host or URL with a dot; they get its
    /// registrable domain, listed in name order. Words, addresses and public suffixes are not.
    func testAWebsiteTypedIsItsRegistrableDomainAndIsListedInItsPlace() throws {
        let addresses = WebAddresses(suffixes: try PublicSuffixList(contents: "com\norg\nde\nco.uk\ngithub.io\n"))
        func typed(_ text: String) -> String? { PickerCatalog.website(typed: text, addresses: addresses) }
        XCTAssertEqual(typed("www.YouTube.com"), "youtube.com")
        XCTAssertEqual(typed("https://m.youtube.com/watch?v=1"), "youtube.com")
        XCTAssertEqual(typed(" news.bbc.co.uk "), "bbc.co.uk")
        XCTAssertEqual(typed("Bücher.de"), "xn--bcher-kva.de")
        XCTAssertEqual(typed("me.github.io"), "me.github.io")
        for text in ["chess", "fire fox", "co.uk", "github.io", "192.168.1.1", "a..b", "", "file:///etc/passwd"] {
            XCTAssertNil(typed(text), text)
        }
        XCTAssertNil(
            PickerCatalog.website(typed: "youtube.com", addresses: nil), "without the suffix list, nothing is typed in")

        var picker = try catalog()
        XCTAssertEqual(picker.add(website: "youtube.com", categories: try table), 3)
        XCTAssertEqual(picker.add(website: "aaa.org", categories: try table), 0)
        XCTAssertEqual(
            picker.add(website: "reddit.com", categories: try table), 3, "one already listed stays where it is")
        XCTAssertEqual(
            picker.websites.map(\.domain), ["aaa.org", "xn--bcher-kva.de", "example.org", "reddit.com", "youtube.com"])
        XCTAssertEqual(picker.website(domain: "youtube.com")?.categoryID, "AudioVideo")
    }

    /// A ticked category covers the websites the table puts in it, as it covers applications.
    func testATickedCategoryCoversItsWebsitesAndTheSummaryNamesTheOthers() throws {
        let picker = try catalog()
        let reddit = try XCTUnwrap(picker.website(domain: "reddit.com"))
        let example = try XCTUnwrap(picker.website(domain: "example.org"))
        var choice = PickerChoice(SelectionRequest(webDomains: ["reddit.com", "gone.example"]))
        XCTAssertTrue(choice.isTicked(reddit))
        choice.set(example, ticked: true)
        XCTAssertEqual(PickerSummary.text(of: choice, in: picker), "Chosen: example.org, reddit.com")

        choice.set(category: "Social", ticked: true)
        XCTAssertTrue(choice.isCoveredByCategory(reddit))
        choice.set(reddit, ticked: false)
        XCTAssertTrue(choice.isTicked(reddit), "a covered website cannot be unticked on its own")
        XCTAssertFalse(choice.isCoveredByCategory(example), "a website without a category is covered by none")
        XCTAssertEqual(
            choice.request(in: picker),
            SelectionRequest(categories: ["Social"], webDomains: ["example.org", "gone.example"]),
            "the category stands for reddit.com; a chosen website the catalog does not list is kept")
        XCTAssertEqual(PickerSummary.text(of: choice, in: picker), "Chosen: Social (all), example.org")
        choice.set(category: "Social", ticked: false)
        XCTAssertEqual(choice.request(in: picker).webDomains, ["example.org", "gone.example", "reddit.com"])
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
