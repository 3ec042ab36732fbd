import Foundation
import ScreenwardBasics
import ScreenwardIPC

/// The texts of our rules' shields, notifications and menus, from `data/rules.json`: each
/// written in English under its name, with `{placeholders}` Screenward fills in, and shown in
/// the person's language through gettext's catalogs (`Translations`, from `po/`), looked up in
/// the context of its name, as the shield's default texts are (`ShieldDefaults`).
public struct RuleTexts: Sendable, Hashable {
    /// Name → English template.
    public var texts: [String: String]

    public init(texts: [String: String]) {
        self.texts = texts
    }

    private struct File: Decodable {
        var texts: [String: String]
    }

    public static func load(from url: URL) throws -> RuleTexts {
        do {
            return RuleTexts(texts: try JSONDecoder().decode(File.self, from: Data(contentsOf: url)).texts)
        } catch let error as DecodingError {
            let values = ["path": url.path, "problem": error.readableDescription]
            // swift-format-ignore
            throw RuleText.Invalid(Phrase("cannot read the rule texts {path}: {problem} (each text is a string, written in English; translations are in po/)", context: "rule", values))
        }
    }

    /// `rules.json` in the data directory.
    public static func load() throws -> RuleTexts {
        try load(from: try DataDirectory.url(of: "rules.json"))
    }

    /// `key` in `language` (English when no catalog translates it), filled in; the key itself
    /// when the file lacks it (a distribution's edited file should not take a shield's words away).
    public func text(_ key: String, language: String, _ values: [String: String] = [:]) -> String {
        guard let template = texts[key] else { return key }
        return Translations.forLanguage(language)(template, context: key, values)
    }

    /// A span for people: `1 h 05 min`, `5 min`, `45 s` (in English; po/ has the others,
    /// context "span").
    public static func span(_ seconds: TimeInterval, language: String = "en") -> String {
        Translations.forLanguage(language)(spanPhrase(seconds))
    }

    /// A span as a phrase, for a text another program shows.
    public static func spanPhrase(_ seconds: TimeInterval) -> Phrase {
        let whole = max(0, Int(seconds.rounded()))
        let (hours, minutes, rest) = (whole / 3600, whole % 3600 / 60, whole % 60)
        if whole >= 3600 {
            guard minutes != 0 else { return Phrase("{hours} h", context: "span", ["hours": "\(hours)"]) }
            return Phrase(
                "{hours} h {minutes} min", context: "span",
                ["hours": "\(hours)", "minutes": minutes < 10 ? "0\(minutes)" : "\(minutes)"])
        }
        if whole >= 60 {
            guard rest != 0, whole < 600 else {
                return Phrase("{minutes} min", context: "span", ["minutes": "\(whole / 60)"])
            }
            return Phrase(
                "{minutes} min {seconds} s", context: "span", ["minutes": "\(whole / 60)", "seconds": "\(rest)"])
        }
        return Phrase("{seconds} s", context: "span", ["seconds": "\(whole)"])
    }
}
