import Foundation
import ScreenwardIPC
import Synchronization

/// Screenward's texts in a person's language: gettext's way, one mechanism for every text a
/// person sees. The sources are `po/LANG.po` (translators' own tools read and write them);
/// `msgfmt` compiles each to `LOCALEDIR/LANG/LC_MESSAGES/screenward.mo`, which this reads.
/// A text is written in English in the code (or a data file) and looked up by that English;
/// a text the catalog lacks is shown in English.
public struct Translations: Sendable {
    /// gettext's text domain: the catalogs' file name.
    public static let domain = "screenward"

    public let language: String
    public let catalog: MessageCatalog

    public init(language: String, catalog: MessageCatalog) {
        self.language = language
        self.catalog = catalog
    }

    /// Every text as written.
    public static let english = Translations(language: "en", catalog: MessageCatalog())

    /// `text` in this language (English when the catalog has no translation), each `{name}`
    /// then filled in from `values`. `context` tells apart two texts written the same way.
    public func callAsFunction(_ text: String, context: String? = nil, _ values: [String: String] = [:]) -> String {
        let template = catalog.translation(of: text, context: context) ?? text
        return values.isEmpty ? template : Self.fill(template, values)
    }

    /// Replaces each `{name}` with its value (`Phrase.fill`).
    public static func fill(_ template: String, _ values: [String: String]) -> String {
        Phrase.fill(template, values)
    }

    /// `phrase` in this language, and each phrase that fills it.
    public func callAsFunction(_ phrase: Phrase) -> String {
        callAsFunction(.phrase(phrase))
    }

    /// A phrase's value in this language (a text as it is).
    public func callAsFunction(_ value: Phrase.Value) -> String {
        value.rendered { english, context in catalog.translation(of: english, context: context) ?? english }
    }

    // MARK: Which language, which catalog

    /// Whether `text` names a language as Screenward keeps one: ISO 639's two or three
    /// lowercase letters (`ko`, `vi`, `fil`). A language names a folder of catalogs, so
    /// nothing else (a path, a locale with its country) is ever taken for one.
    public static func isLanguageCode(_ text: String) -> Bool {
        (2...3).contains(text.utf8.count)
            && text.utf8.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) }
    }

    /// The language of a session's environment: the first of `LANGUAGE` (gettext's list,
    /// `vi:en`), else of `LC_ALL`, `LC_MESSAGES`, `LANG` (`ko_KR.UTF-8` → `ko`); `en` for the
    /// C and POSIX locales and when none is set.
    public static func language(fromEnvironment environment: [String: String]) -> String {
        let locale = DesktopEntry.locale(fromEnvironment: environment)
        let primary = locale.prefix { $0 != "_" && $0 != "." && $0 != "@" }.lowercased()
        if primary.isEmpty || primary == "c" || primary == "posix" { return "en" }
        // LANGUAGE counts only beside a locale that is not C (as in gettext).
        if let list = environment["LANGUAGE"], let first = list.split(separator: ":").first {
            let chosen = first.prefix { $0 != "_" && $0 != "." && $0 != "@" }.lowercased()
            if isLanguageCode(chosen) { return chosen }
        }
        return isLanguageCode(primary) ? primary : "en"
    }

    /// Where catalogs are looked for: `$SCREENWARD_LOCALE_DIR`, else `share/locale` beside the
    /// installed programs (`/usr/bin/../share/locale`), else the source tree's `.build/locale`
    /// when the program runs from a build folder in it (`scripts/compile-translations.sh`).
    public static func localeDirectories(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        executable: URL = URL(fileURLWithPath: CommandLine.arguments.first ?? "/").resolvingSymlinksInPath()
    ) -> [URL] {
        var directories: [URL] = []
        if let explicit = environment["SCREENWARD_LOCALE_DIR"], !explicit.isEmpty {
            directories.append(URL(fileURLWithPath: explicit, isDirectory: true))
        }
        let bin = executable.deletingLastPathComponent()
        directories.append(bin.deletingLastPathComponent().appendingPathComponent("share/locale", isDirectory: true))
        var folder = bin
        for _ in 0..<5 {
            if folder.lastPathComponent == ".build" {
                directories.append(folder.appendingPathComponent("locale", isDirectory: true))
                break
            }
            folder = folder.deletingLastPathComponent()
        }
        return directories
    }

    /// The catalog for `language` from the first directory that has one; English (every text
    /// as written) when none has, or when the one found cannot be read (`problem` says why).
    public static func load(language: String, directories: [URL]) -> (translations: Translations, problem: String?) {
        guard language != "en", isLanguageCode(language) else { return (.english, nil) }
        for directory in directories {
            let file = directory.appendingPathComponent("\(language)/LC_MESSAGES/\(domain).mo")
            guard FileManager.default.fileExists(atPath: file.path) else { continue }
            do {
                return (Translations(language: language, catalog: try MessageCatalog(contentsOf: file)), nil)
            } catch {
                return (.english, "\(error)")
            }
        }
        return (Translations(language: language, catalog: MessageCatalog()), nil)
    }

    private static let loaded = Mutex<[String: Translations]>([:])

    /// The catalog for `language`, read once per process from `localeDirectories()`.
    public static func forLanguage(_ language: String) -> Translations {
        if let known = loaded.withLock({ $0[language] }) { return known }
        let translations = load(language: language, directories: localeDirectories()).translations
        loaded.withLock { $0[language] = translations }
        return translations
    }

    /// The catalog of this process's own session (`language(fromEnvironment:)`).
    public static var session: Translations {
        forLanguage(language(fromEnvironment: ProcessInfo.processInfo.environment))
    }
}
