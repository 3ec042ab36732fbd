import Foundation
import ScreenwardCore

/// A made-up language, `xx`, in which every text of po/screenward.pot reads `⟦English⟧` (its
/// placeholders' values left outside the brackets): a program run in it shows each text that
/// went through the translations in brackets, so a text shown without them did not.
public enum PseudoLocale {
    public static let language = "xx"

    /// A folder of catalogs (`SCREENWARD_LOCALE_DIR`) holding `xx`, made once per process from
    /// the source tree's template.
    public static func catalogs() throws -> URL {
        try made.get()
    }

    private static let made = Result<URL, Error> {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "screenward-pseudo-locale-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let template = TranslationCatalogs.sourceRoot.appendingPathComponent("po/screenward.pot")
        var po = "msgid \"\"\nmsgstr \"Content-Type: text/plain; charset=UTF-8\\n\"\n"
        for entry in try POFile.entries(of: template) {
            if let context = entry.context { po += "\nmsgctxt \(POFile.quoted(context))\n" } else { po += "\n" }
            po += "msgid \(POFile.quoted(entry.text))\nmsgstr \(POFile.quoted(bracketed(entry.text)))\n"
        }
        let source = folder.appendingPathComponent("xx.po")
        try po.write(to: source, atomically: true, encoding: .utf8)
        try TranslationCatalogs.compile(source, language: language, into: folder)
        return folder
    }

    /// `text` with each stretch between its placeholders in brackets (`{left} left: {rule}` →
    /// `{left}⟦ left: ⟧{rule}`): what fills a placeholder stays outside, where an English
    /// value (a unit, a name of Screenward's) is seen too.
    static func bracketed(_ text: String) -> String {
        var result = ""
        var stretch = ""
        var rest = Substring(text)
        func flush() {
            if !stretch.isEmpty { result += "⟦\(stretch)⟧" }
            stretch = ""
        }
        while let open = rest.firstIndex(of: "{") {
            stretch += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}") else { break }
            flush()
            result += rest[open...close]
            rest = rest[rest.index(after: close)...]
        }
        stretch += rest
        flush()
        return result
    }

    /// The environment that has a program speak `xx` (LANGUAGE counts beside a locale that is not C).
    public static func environment() throws -> [String: String] {
        ["LANG": "en_US.UTF-8", "LANGUAGE": language, "SCREENWARD_LOCALE_DIR": try catalogs().path]
    }

    /// What is left of `text` once each `⟦translated⟧` part and each of `data` (names of
    /// apps, websites: not Screenward's texts) is taken out, with spaces, digits and
    /// punctuation: empty when all of it went through the translations.
    public static func untranslated(in text: String, data: Set<String>) -> String {
        var rest = text
        // Innermost first: a translated text may hold another (a duration in a sentence).
        while let close = rest.range(of: "⟧"),
            let open = rest.range(of: "⟦", options: .backwards, range: rest.startIndex..<close.lowerBound)
        {
            rest.replaceSubrange(open.lowerBound..<close.upperBound, with: " ")
        }
        for name in data.sorted(by: { $0.count > $1.count }) { rest = rest.replacingOccurrences(of: name, with: " ") }
        return String(rest.unicodeScalars.filter { CharacterSet.letters.contains($0) }.map(Character.init))
    }
}

/// A PO file written without wrapping (scripts/update-translations.sh's), read entry by entry.
public enum POFile {
    public struct Entry: Sendable {
        public var context: String?
        public var text: String
        public var translation: String
    }

    public static func entries(of file: URL) throws -> [Entry] {
        var entries: [Entry] = []
        var context: String?
        var text: String?
        func literal(_ line: Substring) throws -> String {
            try JSONDecoder().decode(String.self, from: Data(line.utf8))
        }
        for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
            if line.hasPrefix("msgctxt ") {
                context = try literal(line.dropFirst(8))
            } else if line.hasPrefix("msgid ") {
                text = try literal(line.dropFirst(6))
            } else if line.hasPrefix("msgstr "), let written = text {
                if !written.isEmpty {
                    entries.append(Entry(context: context, text: written, translation: try literal(line.dropFirst(7))))
                }
                context = nil
                text = nil
            }
        }
        return entries
    }

    /// `text` as a PO string.
    public static func quoted(_ text: String) -> String {
        var quoted = "\""
        for character in text {
            switch character {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "\n": quoted += "\\n"
            case "\t": quoted += "\\t"
            default: quoted.append(character)
            }
        }
        return quoted + "\""
    }
}
