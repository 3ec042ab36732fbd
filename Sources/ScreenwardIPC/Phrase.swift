/// A text for a person, kept as written (English, with `{placeholders}`) beside what fills
/// it, so that whoever shows it can show it in the reader's language: the agent and the
/// daemon answer a command line whose language they do not know, and it translates their
/// errors and outcomes with its own session's catalog. `description` is the English.
///
/// A phrase is written `Phrase("English {name}", context: "where", ["name": value])`, one
/// literal on one line, so that scripts/update-translations.sh finds it for the translators.
public struct Phrase: Codable, Hashable, Sendable, CustomStringConvertible {
    /// What fills a placeholder: a text shown as it is (a name, a number), another phrase,
    /// translated too, or a list of them (shown separated by commas).
    public indirect enum Value: Codable, Hashable, Sendable {
        case text(String)
        case phrase(Phrase)
        case list([Value])

        /// On the wire a text is a JSON string, a phrase a JSON object and a list an array.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let text = try? container.decode(String.self) {
                self = .text(text)
            } else if let list = try? container.decode([Value].self) {
                self = .list(list)
            } else {
                self = .phrase(try container.decode(Phrase.self))
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .text(let text): try container.encode(text)
            case .phrase(let phrase): try container.encode(phrase)
            case .list(let list): try container.encode(list)
            }
        }
    }

    /// The text as written, in English.
    public var english: String
    /// Tells apart two texts written the same way (gettext's msgctxt).
    public var context: String
    public var values: [String: Value]

    public init(_ english: String, context: String, _ values: [String: any PhraseFilling] = [:]) {
        self.english = english
        self.context = context
        self.values = values.mapValues(\.phraseValue)
    }

    /// The phrase in the language `translate` gives each template (and each inner phrase's).
    public func rendered(by translate: (_ english: String, _ context: String) -> String) -> String {
        Self.fill(translate(english, context), values.mapValues { $0.rendered(by: translate) })
    }

    /// In English, as written.
    public var description: String { rendered { english, _ in english } }

    /// Replaces each `{name}` with its value, in one pass (a value holding braces is not read
    /// again); a placeholder without a value stays as written.
    public static func fill(_ template: String, _ values: [String: String]) -> String {
        var result = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            let afterOpen = rest.index(after: open)
            if let close = rest[afterOpen...].firstIndex(of: "}"), let value = values[String(rest[afterOpen..<close])] {
                result += value
                rest = rest[rest.index(after: close)...]
            } else {
                result += "{"
                rest = rest[afterOpen...]
            }
        }
        return result + rest
    }
}

/// What may fill a phrase's placeholder: a text as it is, or another phrase.
public protocol PhraseFilling: Sendable {
    var phraseValue: Phrase.Value { get }
}

extension String: PhraseFilling {
    public var phraseValue: Phrase.Value { .text(self) }
}

extension Phrase: PhraseFilling {
    public var phraseValue: Phrase.Value { .phrase(self) }
}

extension Phrase.Value: PhraseFilling {
    public var phraseValue: Phrase.Value { self }

    /// The value in the language `translate` gives (a text as it is).
    public func rendered(by translate: (_ english: String, _ context: String) -> String) -> String {
        switch self {
        case .text(let text): text
        case .phrase(let phrase): phrase.rendered(by: translate)
        case .list(let list): list.map { $0.rendered(by: translate) }.joined(separator: ", ")
        }
    }
}
