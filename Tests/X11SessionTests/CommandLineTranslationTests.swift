import Foundation
import SessionHarness
import TestSupport
import XCTest

/// The command line speaks its session's language: what it prints and every error it
/// reports, its own and the agent's (which come as phrases it translates), go through the
/// translations. Run in the pseudo-locale, where each translated text is bracketed, and in
/// Korean and Vietnamese, where no English line may be left.
final class CommandLineTranslationTests: XSessionTestCase {
    /// Names that are data, not Screenward's texts: apps, rules, ids, the store.
    private static let names: Set<String> = [
        "Games", "Bedtime", "Game", "Notes", "game.desktop", "notes.desktop", "nosuch.desktop", "screenward.cli",
        "Nope", "Late",
    ]

    /// What a person reads of one run: its output and its errors, without what ArgumentParser
    /// writes itself around a `validate()` error (its "Error: " and usage lines, which are
    /// the library's, in English: docs/translations.md says so).
    private static func readable(_ run: (status: Int32, output: String, errors: String)) -> [String] {
        (run.output + "\n" + run.errors).split(separator: "\n").map(String.init).filter {
            !$0.hasPrefix("Usage: ") && !$0.hasPrefix("  See '")
        }.map { $0.hasPrefix("Error: ") ? String($0.dropFirst("Error: ".count)) : $0 }
    }

    /// `line` without what is a value: ISO-8601 times and paths.
    static func withoutValues(_ line: String) -> String {
        line.replacingOccurrences(
            of: #"\d{4}-\d{2}-\d{2}T[0-9:.]+([+-]\d{2}:\d{2}|Z)"#, with: " ", options: .regularExpression
        ).replacingOccurrences(of: #"/[^\s)⟦⟧]+"#, with: " ", options: .regularExpression)
    }

    /// The names of months and of the halves of the day in the pseudo-locale's dates: ICU's,
    /// which write the dates in each language, not the translations'.
    static let dateWords: Set<String> = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: PseudoLocale.language)
        return Set(
            formatter.monthSymbols + formatter.shortMonthSymbols + formatter.weekdaySymbols
                + formatter.shortWeekdaySymbols + [formatter.amSymbol, formatter.pmSymbol])
    }()

    private func untranslated(_ line: String) -> String {
        PseudoLocale.untranslated(in: Self.withoutValues(line), data: Self.names.union(Self.dateWords))
    }

    func testTheCommandLinesMessagesAndErrorsAreTranslated() throws {
        let scene = try startShieldScene()
        defer { scene.stop() }
        let pseudo = try PseudoLocale.environment()
        let later = Date().addingTimeInterval(2 * 3600)
        let end = later.addingTimeInterval(3600)
        // Changes and their outcomes, then refusals: the agent's, the rules', the command line's own.
        let bedtime = [
            "downtime", "add", "Bedtime", "--from", Self.hourAndMinute(later), "--to", Self.hourAndMinute(end),
            "--days",
            "sat,sun",
        ]
        let succeeding: [[String]] = [
            ["limit", "add", "Games", "--app", "game.desktop", "--daily", "1h", "--days", "mon-fri"],
            ["limit", "change", "Games", "--app", "game.desktop", "--daily", "45m", "--locked-for", "1h"],
            ["limit", "change", "Games", "--app", "game.desktop", "--daily", "2h"], bedtime,
            ["allow", "notes.desktop"], ["shield", "add", "--app", "notes.desktop"],
            ["shield", "remove", "--app", "notes.desktop"],
        ]
        let failing: [[String]] = [
            ["shield", "remove", "--app", "notes.desktop"], ["allow", "nosuch.desktop"],
            ["downtime", "add", "Late", "--from", "25:00", "--to", "07:00"],
            ["limit", "add", "Games", "--app", "game.desktop", "--daily", "1h"],
            ["limit", "add", "Nope", "--app", "game.desktop", "--daily", "0s"], ["limit", "remove", "Nope"],
            ["downtime", "remove", "Games"], ["pause", "--for", "5m"], ["request", "list"], ["child", "list"],
            ["allow", "remove", "nosuch.desktop"],
        ]
        var seen = 0
        for (arguments, succeeds) in succeeding.map({ ($0, true) }) + failing.map({ ($0, false) }) {
            let run = try scene.agent.cliRun(arguments, environment: pseudo)
            XCTAssertEqual(run.status == 0, succeeds, "\(arguments): \(run.output) \(run.errors)")
            for line in Self.readable(run) where !line.isEmpty {
                seen += 1
                XCTAssertEqual(untranslated(line), "", "screenward \(arguments.joined(separator: " ")): \(line)")
            }
        }
        XCTAssertGreaterThan(seen, 15)

        // What is read, in the pseudo-locale, in English, Korean and Vietnamese.
        let reads = [
            ["limit", "list"], ["downtime", "list"], ["allow", "list"], ["status"], ["usage"], ["usage", "--web"],
            ["shields"], ["limit", "remove", "Nope"], ["allow", "nosuch.desktop"],
        ]
        func shown(_ environment: [String: String]) throws -> [String] {
            try reads.flatMap { Self.readable(try scene.agent.cliRun($0, environment: environment)) }.filter {
                !$0.isEmpty
            }
        }
        for line in try shown(pseudo) {
            XCTAssertEqual(untranslated(line), "", "not through the translations: \(line)")
        }
        let english = try shown(["LANG": "C.UTF-8", "LANGUAGE": ""])
        XCTAssertGreaterThan(english.count, 10, "\(english)")
        for locale in ["ko_KR.UTF-8", "vi_VN.UTF-8"] {
            let translated = Set(try shown(["LANG": locale, "LANGUAGE": ""]))
            for line in english where !untranslated(line).isEmpty {
                XCTAssertFalse(translated.contains(line), "\(locale) shows the English \(line)")
            }
        }
    }
}
