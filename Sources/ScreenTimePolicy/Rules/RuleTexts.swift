import Foundation
import ScreenwardBasics

/// The texts of our rules' shields, notifications and menus, from `data/rules.json`,
/// localized the way the shield's default texts are (`ShieldDefaults`): a table of
/// language → template per text, `{placeholders}` filled in, English as the fallback.
public struct RuleTexts: Sendable, Hashable {
    public var texts: [String: [String: String]]

    public init(texts: [String: [String: String]]) {
        self.texts = texts
    }

    private struct File: Decodable {
        var texts: [String: [String: String]]
    }

    public static func load(from url: URL) throws -> RuleTexts {
        do {
            let file = try JSONDecoder().decode(File.self, from: Data(contentsOf: url))
            for (key, table) in file.texts where table[ShieldDefaults.fallbackLanguage] == nil {
                throw RuleText.Invalid(
                    "the rule texts \(url.path) have no '\(ShieldDefaults.fallbackLanguage)' text for '\(key)'")
            }
            return RuleTexts(texts: file.texts)
        } catch let error as DecodingError {
            throw RuleText.Invalid("cannot read the rule texts \(url.path): \(error.readableDescription)")
        }
    }

    /// `rules.json` in the data directory.
    public static func load() throws -> RuleTexts {
        try load(from: try DataDirectory.url(of: "rules.json"))
    }

    /// `key` in `language` (else English), filled in; the key itself when the file lacks
    /// it (a distribution's edited file should not take a shield's words away).
    public func text(_ key: String, language: String, _ values: [String: String] = [:]) -> String {
        guard let table = texts[key], let template = table[language] ?? table[ShieldDefaults.fallbackLanguage] else {
            return key
        }
        return ShieldDefaults.substitute(template, values)
    }

    /// A span for people: `1 h 05 min`, `5 min`, `45 s`.
    public static func span(_ seconds: TimeInterval) -> String {
        let whole = max(0, Int(seconds.rounded()))
        if whole >= 3600 {
            return whole % 3600 / 60 == 0
                ? "\(whole / 3600) h" : String(format: "%d h %02d min", whole / 3600, whole % 3600 / 60)
        }
        if whole >= 60 {
            return whole % 60 == 0 || whole >= 600 ? "\(whole / 60) min" : "\(whole / 60) min \(whole % 60) s"
        }
        return "\(whole) s"
    }
}
