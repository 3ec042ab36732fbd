import Foundation
import TestSupport
import XCTest

@testable import ScreenTimePolicy
@testable import ScreenwardCore

final class RuleTests: XCTestCase {
    func testDurationsAreReadStrictly() throws {
        XCTAssertEqual(try RuleText.duration("1h"), 3600)
        XCTAssertEqual(try RuleText.duration("90m"), 5400)
        XCTAssertEqual(try RuleText.duration("1h30m"), 5400)
        XCTAssertEqual(try RuleText.duration("2h5m10s"), 7510)
        XCTAssertEqual(try RuleText.duration(" 45s "), 45)
        for bad in ["", "1", "h", "30m1h", "1h1h", "1.5h", "-1h", "1d", "1 h", "99999999h"] {
            XCTAssertThrowsError(try RuleText.duration(bad), bad)
        }
        XCTAssertThrowsError(try RuleText.duration("0m")) { error in
            XCTAssertTrue("\(error)".contains("of 0 means nothing"), "\(error)")
        }
        XCTAssertEqual(RuleText.duration(5400), "1h30m")
        XCTAssertEqual(RuleText.duration(45), "45s")
        XCTAssertEqual(RuleText.duration(7200), "2h")
    }

    func testDaysAndTimesOfDay() throws {
        XCTAssertEqual(try RuleText.weekdays("mon-fri").days, [2, 3, 4, 5, 6])
        XCTAssertEqual(try RuleText.weekdays("sat,sun").days, [7, 1])
        XCTAssertEqual(try RuleText.weekdays("fri-mon").days, [6, 7, 1, 2], "a range wraps over the weekend")
        XCTAssertEqual(try RuleText.weekdays("Monday,wed-fri").days, [2, 4, 5, 6])
        XCTAssertTrue(try RuleText.weekdays("every").isEvery)
        for bad in ["", "mo", "mon-", "funday", "mon,,tue"] { XCTAssertThrowsError(try RuleText.weekdays(bad), bad) }
        XCTAssertEqual(try RuleText.weekdays("mon-fri").description, "mon-fri")
        XCTAssertEqual(try RuleText.weekdays("sun,mon").description, "mon,sun")

        XCTAssertEqual(try RuleText.timeOfDay("21:00"), TimeOfDay(hour: 21, minute: 0))
        XCTAssertEqual(try RuleText.timeOfDay("7:30"), TimeOfDay(hour: 7, minute: 30))
        for bad in ["24:00", "7:3", "7", "07:60", "-1:00", "7h30"] {
            XCTAssertThrowsError(try RuleText.timeOfDay(bad), bad)
        }
    }

    func testNames() throws {
        XCTAssertEqual(try RuleText.name(" School nights "), "School nights")
        XCTAssertThrowsError(try RuleText.name(""))
        XCTAssertThrowsError(try RuleText.name("a/b"))
        XCTAssertThrowsError(try RuleText.name(String(repeating: "x", count: 41)))
    }

    func testTighteningAndRelaxing() {
        let games = RuleItems(applications: ["game.desktop"])
        let base = Rule.limit("Games", items: games, daily: 3600, days: Weekdays([2, 3, 4, 5, 6]), lockedFor: 3600)
        XCTAssertTrue(
            Rule.limit("Games", items: games, daily: 1800, days: .every, lockedFor: 3600).isAtLeastAsStrict(as: base))
        XCTAssertTrue(
            Rule.limit(
                "Games", items: RuleItems(applications: ["game.desktop", "chat.desktop"]), daily: 3600, days: .every,
                lockedFor: 7200
            )
            .isAtLeastAsStrict(as: base))
        XCTAssertFalse(
            Rule.limit("Games", items: games, daily: 3601, days: .every, lockedFor: 3600).isAtLeastAsStrict(as: base),
            "more time")
        XCTAssertFalse(
            Rule.limit("Games", items: games, daily: 3600, days: Weekdays([2]), lockedFor: 3600).isAtLeastAsStrict(
                as: base), "fewer days")
        XCTAssertFalse(
            Rule.limit("Games", items: RuleItems(categories: ["Game"]), daily: 60, lockedFor: 3600).isAtLeastAsStrict(
                as: base), "other apps")
        XCTAssertFalse(
            Rule.limit("Games", items: games, daily: 60, days: .every, lockedFor: 60).isAtLeastAsStrict(as: base),
            "a shorter lock")
        XCTAssertFalse(
            Rule.limit("Games", items: games, daily: 60, days: .every, lockedFor: 3600, extraTimePerDay: 3)
                .isAtLeastAsStrict(as: base),
            "more extra time")

        let night = Rule.downtime("Bedtime", from: TimeOfDay(hour: 21, minute: 0), to: TimeOfDay(hour: 7, minute: 0))
        XCTAssertTrue(
            Rule.downtime("Bedtime", from: TimeOfDay(hour: 20, minute: 0), to: TimeOfDay(hour: 7, minute: 30))
                .isAtLeastAsStrict(as: night))
        XCTAssertFalse(
            Rule.downtime("Bedtime", from: TimeOfDay(hour: 22, minute: 0), to: TimeOfDay(hour: 7, minute: 0))
                .isAtLeastAsStrict(as: night))
        XCTAssertFalse(
            Rule.downtime(
                "Bedtime", from: TimeOfDay(hour: 21, minute: 0), to: TimeOfDay(hour: 7, minute: 0), days: Weekdays([1])
            ).isAtLeastAsStrict(as: night),
            "fewer nights")
        XCTAssertEqual(night.downtimeLength, 10 * 3600)
    }

    func testProblems() {
        XCTAssertNil(Rule.limit("Games", items: RuleItems(applications: ["game.desktop"]), daily: 60).problem)
        XCTAssertNotNil(Rule.limit("Games", items: RuleItems(), daily: 60).problem)
        XCTAssertNotNil(Rule.limit("Games", items: RuleItems(applications: ["g"]), daily: 0).problem)
        XCTAssertNotNil(Rule.limit("Games", items: RuleItems(applications: ["g"]), daily: 86_400).problem)
        XCTAssertNotNil(
            Rule.downtime("Never", from: TimeOfDay(hour: 9, minute: 0), to: TimeOfDay(hour: 9, minute: 0)).problem)
        XCTAssertNotNil(
            Rule.limit("Games", items: RuleItems(applications: ["g"]), daily: 60, days: Weekdays([])).problem)
    }

    func testActivityNamesRoundTrip() {
        XCTAssertEqual(ActivityNaming.parse(ActivityNaming.name(.limit, "School nights")).1, "School nights")
        XCTAssertEqual(ActivityNaming.parse(ActivityNaming.name(.limit, "a.b")).1, "a.b")
        let warning = ActivityNaming.downtimeWarning("Bed.time", lead: 60)
        XCTAssertEqual(ActivityNaming.parse(warning).0, .downtimeWarning)
        XCTAssertEqual(ActivityNaming.parse(warning).1, "Bed.time")
        XCTAssertEqual(ActivityNaming.warningLead(warning.rawValue), 60)
        XCTAssertEqual(ActivityNaming.warningLead(ActivityNaming.warningEvent(300).rawValue), 300)
        XCTAssertNil(ActivityNaming.warningLead("used-up"))
    }
}

final class RuleTextsTests: XCTestCase {
    /// The shield's, the notifications' and the tray's texts are in the three languages
    /// the shield speaks (po/ko.po, po/vi.po), with the same placeholders in each.
    func testEveryRuleTextIsInEnglishKoreanAndVietnamese() throws {
        let texts = try RuleTexts.load(from: try DataDirectory.url(of: "rules.json"))
        XCTAssertGreaterThan(texts.texts.count, 30)
        for language in ["ko", "vi"] {
            let translations = try TranslationCatalogs.compiled(language)
            for (key, english) in texts.texts {
                let translated = try XCTUnwrap(
                    translations.catalog.translation(of: english, context: key), "\(key) has no \(language) text")
                XCTAssertEqual(
                    Set(ShieldDefaults.placeholderNames(in: translated)),
                    Set(ShieldDefaults.placeholderNames(in: english)), "\(key) in \(language): \(translated)")
            }
        }
        // As the programs read them: the catalogs scripts/compile-translations.sh made in .build/locale.
        XCTAssertFalse(
            Translations.forLanguage("ko").catalog.messages.isEmpty,
            "no Korean catalog beside the tests: run scripts/compile-translations.sh (scripts/test.sh does)")
        XCTAssertEqual(
            texts.text("trayLeft", language: "ko", ["rule": "게임", "left": "5 min"]), "게임: 5 min 남음")
        XCTAssertEqual(
            texts.text("trayLeft", language: "fr", ["rule": "Games", "left": "5 min"]), "Games: 5 min left",
            "English when a language is missing")
    }
}

final class RuleWebsiteTests: XCTestCase {
    func testRulesStoredBeforeWebsitesStillRead() throws {
        let old = #"{"applications":["game.desktop"],"categories":[],"applicationTokens":[],"categoryTokens":[]}"#
        let items = try JSONDecoder().decode(RuleItems.self, from: Data(old.utf8))
        XCTAssertEqual(items, RuleItems(applications: ["game.desktop"]))
        let sites = RuleItems(websites: ["videos.test"])
        XCTAssertEqual(try JSONDecoder().decode(RuleItems.self, from: JSONEncoder().encode(sites)), sites)
        XCTAssertFalse(sites.isEmpty)
        XCTAssertNil(Rule.limit("Videos", items: sites, daily: 3600).problem)
        XCTAssertTrue(
            RuleItems(applications: ["a"], websites: ["x.test", "y.test"]).contains(RuleItems(websites: ["y.test"])))
        XCTAssertFalse(RuleItems(applications: ["a"]).contains(RuleItems(websites: ["y.test"])))
    }
}
