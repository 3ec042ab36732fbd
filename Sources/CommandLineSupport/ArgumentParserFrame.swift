import Foundation
import ScreenwardBasics

/// What swift-argument-parser writes itself around our help and our refused arguments (its
/// headings, its "Show help information.", its usage lines and its most common parsing
/// errors), in the reader's language. The library has no way to translate them, so its text is
/// read line by line, and only lines it is known to write are changed; anything else it writes
/// is left as it is (in English). Our own help texts are already translated (context "help").
public enum ArgumentParserFrame {
    /// `text`, as the library wrote it, in `texts`' language.
    public static func translated(_ text: String, by texts: Translations) -> String {
        guard texts.language != "en" else { return text }
        return text.split(separator: "\n", omittingEmptySubsequences: false).map {
            translated(line: String($0), texts)
        }.joined(separator: "\n")
    }

    private static func translated(line: String, _ texts: Translations) -> String {
        for (prefix, label) in labels(texts) where line.hasPrefix(prefix) {
            return label + translated(message: String(line.dropFirst(prefix.count)), texts)
        }
        for (title, heading) in headings(texts) where line == title { return heading }
        if let command = line.captured(#"^  See '(.+) <subcommand>' for detailed help\.$"#) {
            return "  "
                + texts("See '{command} <subcommand>' for detailed help.", context: "help.frame", ["command": command])
        }
        if let command = line.captured(#"^  See '(.+)' for more information\.$"#) {
            return "  " + texts("See '{command}' for more information.", context: "help.frame", ["command": command])
        }
        if line.hasSuffix(" Show help information.") {
            return String(line.dropLast("Show help information.".count))
                + texts("Show help information.", context: "help.frame")
        }
        if let value = line.captured(#"\(default: ([^()]*)\)$"#) {
            return String(line.dropLast("(default: \(value))".count))
                + texts("(default: {value})", context: "help.frame", ["value": value])
        }
        if let name = line.captured(#"^  (\S+) \(default\)"#) {
            let label = texts("{subcommand} (default)", context: "help.frame", ["subcommand": name])
            return "  " + label + String(line.dropFirst("  \(name) (default)".count))
        }
        return line
    }

    /// The labels the library starts a line with, and the rest of the line after them.
    private static func labels(_ texts: Translations) -> [(String, String)] {
        [
            ("OVERVIEW:", texts("OVERVIEW:", context: "help.frame")),
            ("USAGE:", texts("USAGE:", context: "help.frame")),
            ("Usage:", texts("Usage:", context: "help.frame")),
            ("Help:", texts("Help:", context: "help.frame")),
            ("Error:", texts("Error:", context: "help.frame")),
        ]
    }

    private static func headings(_ texts: Translations) -> [(String, String)] {
        [
            ("ARGUMENTS:", texts("ARGUMENTS:", context: "help.frame")),
            ("OPTIONS:", texts("OPTIONS:", context: "help.frame")),
            ("SUBCOMMANDS:", texts("SUBCOMMANDS:", context: "help.frame")),
        ]
    }

    /// The library's own parsing errors people meet most; our messages (already translated)
    /// and its others pass as they are.
    private static func translated(message: String, _ texts: Translations) -> String {
        let trimmed = message.trimmingCharacters(in: .whitespaces)
        let leading = String(message.prefix { $0 == " " })
        if let argument = trimmed.captured(#"^Missing expected argument '(.+)'$"#) {
            return leading
                + texts("Missing expected argument '{argument}'", context: "help.frame", ["argument": argument])
        }
        if let option = trimmed.captured(#"^Unknown option '([^']+)'$"#) {
            return leading + texts("Unknown option '{option}'", context: "help.frame", ["option": option])
        }
        if let option = trimmed.captured(#"^Missing value for '(.+)'$"#) {
            return leading + texts("Missing value for '{option}'", context: "help.frame", ["option": option])
        }
        if let argument = trimmed.captured(#"^Unexpected argument '(.+)'$"#) {
            return leading + texts("Unexpected argument '{argument}'", context: "help.frame", ["argument": argument])
        }
        if let value = trimmed.captured(#"^The value '(.*)' is invalid for '[^']+'"#),
            let option = trimmed.captured(#"^The value '.*' is invalid for '([^']+)'"#)
        {
            let reason = trimmed.captured(#"^The value '.*' is invalid for '[^']+'(: .*)$"#) ?? ""
            return leading
                + texts(
                    "The value '{value}' is invalid for '{option}'", context: "help.frame",
                    ["value": value, "option": option]) + reason
        }
        if trimmed == "Missing required subcommand." {
            return leading + texts("Missing required subcommand.", context: "help.frame")
        }
        return message
    }
}

extension String {
    /// The first group of `pattern` where it matches this text.
    fileprivate func captured(_ pattern: String) -> String? {
        guard let expression = try? NSRegularExpression(pattern: pattern),
            let match = expression.firstMatch(in: self, range: NSRange(startIndex..., in: self)),
            match.numberOfRanges > 1, let range = Range(match.range(at: 1), in: self)
        else { return nil }
        return String(self[range])
    }
}
