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

    /// What a person reads of one run: its output and its errors, without the usage line
    /// ArgumentParser writes after a refused argument (syntax), and with the command its "See
    /// '…' for more information" names taken out.
    private static func readable(_ run: (status: Int32, output: String, errors: String)) -> [String] {
        (run.output + "\n" + run.errors).split(separator: "\n").map(String.init).filter {
            !$0.hasPrefix("Usage: ") && !$0.hasPrefix("⟦Usage:⟧ ") && !$0.hasPrefix("사용법: ")
                && !$0.hasPrefix("Cách dùng: ")
        }.map { $0.replacingOccurrences(of: #"'⟧[^⟦]+⟦'"#, with: "'⟧ ⟦'", options: .regularExpression) }
    }

    /// `line` without what is a value: ISO-8601 times, paths, and the syntax the argument
    /// parser names (`--minutes <minutes>`).
    static func withoutValues(_ line: String) -> String {
        line.replacingOccurrences(of: #"<[^>]+>"#, with: " ", options: .regularExpression)
            .replacingOccurrences(of: #"(^|\s)--?[a-z][a-z0-9-]*"#, with: " ", options: .regularExpression)
            .replacingOccurrences(
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
            ["allow", "remove", "nosuch.desktop"], ["limit", "add"], ["request", "approve", "kid/1", "--minutes", "x"],
            ["limit", "list", "--nosuch"],
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

    /// Every command's `--help` in the pseudo-locale: our help texts and what the argument
    /// parser writes around them (its headings, its "Show help information.") are in brackets;
    /// what is left are the commands' and options' own names and the usage lines' syntax.
    func testEveryCommandsHelpIsTranslated() throws {
        let program = try ProjectPrograms.url(of: "screenward")
        let pseudo = try PseudoLocale.environment()
        let dump = try Data(run(program, ["--experimental-dump-help"], environment: ["LANG": "C.UTF-8"]).utf8)
        var commands: [[String]] = []
        func walk(_ command: [String: Any], _ path: [String]) {
            commands.append(path)
            for sub in command["subcommands"] as? [[String: Any]] ?? [] {
                walk(sub, path + [sub["commandName"] as? String ?? "?"])
            }
        }
        let root = try XCTUnwrap(JSONSerialization.jsonObject(with: dump) as? [String: Any])
        walk(try XCTUnwrap(root["command"] as? [String: Any]), [])
        XCTAssertGreaterThan(commands.count, 40)
        for command in commands where command != ["help"] {
            let help = try run(program, command + ["--help"], environment: pseudo)
            XCTAssertTrue(help.contains("⟦USAGE:⟧"), "screenward \(command.joined(separator: " ")) --help: \(help)")
            var inSubcommands = false
            var usage = false
            for line in help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
                // The usage line and its continuation lines are syntax (options, <values>).
                if line.hasPrefix("⟦USAGE:⟧") { usage = true }
                if line.isEmpty { (usage, inSubcommands) = (false, false) }
                if usage { continue }
                if line.hasPrefix("⟦") && line.hasSuffix("⟧") && !line.hasPrefix("  ") {
                    inSubcommands = line == "⟦SUBCOMMANDS:⟧"
                }
                // Values: <names>, options, a default value (typed as it is: `every`, `1h`).
                var text = line.replacingOccurrences(of: #"<[^>]+>"#, with: " ", options: .regularExpression)
                    .replacingOccurrences(of: #"--?[a-z][a-z0-9-]*"#, with: " ", options: .regularExpression)
                    .replacingOccurrences(of: #"⟦\(default: ⟧.*⟦\)⟧"#, with: " ", options: .regularExpression)
                    .replacingOccurrences(of: "screenward", with: " ")
                // A subcommand's name, first on its line; a placeholder a help text names.
                if inSubcommands, let name = text.split(whereSeparator: { $0 == " " || $0 == "⟦" }).first,
                    line.hasPrefix("  ")
                {
                    text = text.replacingOccurrences(of: String(name), with: " ")
                }
                for word in command { text = text.replacingOccurrences(of: word, with: " ") }
                XCTAssertEqual(
                    PseudoLocale.untranslated(in: Self.withoutValues(text), data: Self.helpData), "",
                    "screenward \(command.joined(separator: " ")) --help: \(line)")
            }
            // In Korean and Vietnamese, no line of the English help is left but the syntax's.
            let english = Self.proseLines(try run(program, command + ["--help"], environment: ["LANG": "C.UTF-8"]))
            XCTAssertFalse(english.isEmpty)
            for locale in ["ko_KR.UTF-8", "vi_VN.UTF-8"] {
                let translated = Set(
                    Self.proseLines(
                        try run(program, command + ["--help"], environment: ["LANG": locale, "LANGUAGE": ""])))
                for line in english where translated.contains(line) {
                    XCTFail("\(locale): screenward \(command.joined(separator: " ")) --help shows the English \(line)")
                }
            }
        }
    }

    /// The help's lines that hold words, but for its usage line (syntax: options and <values>)
    /// and the lines that only name an option.
    private static func proseLines(_ help: String) -> [String] {
        var usage = false
        return help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { line in
            if ["USAGE:", "사용법:", "CÁCH DÙNG:"].contains(where: { line.hasPrefix($0) }) { usage = true }
            if line.isEmpty { usage = false }
            let words = line.replacingOccurrences(of: #"<[^>]+>"#, with: " ", options: .regularExpression)
                .replacingOccurrences(of: #"--?[a-z][a-z0-9-]*"#, with: " ", options: .regularExpression)
            return !usage && words.contains { $0.isLetter }
        }
    }

    /// Words in help that are values: the store's and the client's ids, the `help` command,
    /// and the keys of a JSON example (which the pseudo-locale takes for placeholders).
    private static let helpData: Set<String> = [
        "screenward.cli", "org.screenward.cli", "help", "applications", "categories", "webDomains",
        "includeEntireCategory",
    ]

    private func run(_ program: URL, _ arguments: [String], environment: [String: String]) throws -> String {
        let process = Process()
        process.executableURL = program
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            .merging(["COLUMNS": "10000"]) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
