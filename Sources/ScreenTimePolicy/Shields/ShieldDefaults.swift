import Foundation
import ManagedSettingsUI
import ScreenwardBasics

/// The default look and texts of a shield, from `data/shield.json` (a file a
/// distribution may change). The texts are written in English there and shown in the
/// person's language through gettext's catalogs (`Translations`, from `po/`), each looked up
/// in the context of its name (`msgctxt "title"`).
///
/// A shield is drawn from an app's `ShieldConfiguration` merged over these defaults
/// (`resolve`): each nil field takes the default; a nil `secondaryButtonLabel` means no
/// secondary button unless the file itself gives a `secondaryButton` text.
public struct ShieldDefaults: Hashable, Sendable {
    /// The default look.
    public struct Look: Hashable, Codable, Sendable {
        public var backgroundBlurStyle: ShieldBlurStyle
        public var backgroundColor: ShieldColor
        public var icon: ShieldIcon
        public var titleColor: ShieldColor
        public var subtitleColor: ShieldColor
        public var primaryButtonLabelColor: ShieldColor
        public var primaryButtonBackgroundColor: ShieldColor
        public var secondaryButtonLabelColor: ShieldColor
    }

    /// The texts the file holds, in English.
    public enum Text: String, Hashable, Codable, Sendable, CaseIterable {
        case title
        case subtitle
        /// The subtitle when the shield is up because of a category (`{category}` names it).
        case subtitleInCategory
        case primaryButton
        /// Optional: a default secondary button. The shipped file has none.
        case secondaryButton
        /// The shield window's title, which names the covered application.
        case windowTitle
        /// Optional: the title and subtitle of a managed user's program the system did not
        /// install (child mode shields it until a guardian allows it).
        case notInstalledTitle
        case notInstalledSubtitle
        /// Optional: the title and subtitle of a managed user's browser that Screenward's
        /// extension does not report for (child mode shields it as not supported).
        case unsupportedBrowserTitle
        case unsupportedBrowserSubtitle
        /// Optional: the title and subtitle of a managed user's browser covered while child
        /// mode waits for its extension's first report.
        case checkingBrowserTitle
        case checkingBrowserSubtitle

        /// The texts every file must give.
        public static let required: [Text] = [.title, .subtitle, .subtitleInCategory, .primaryButton, .windowTitle]
    }

    /// The placeholders texts may use.
    public static let placeholders: Set<String> = ["app", "category"]
    /// The language the file's texts are written in, and shown in when there is no translation.
    public static let fallbackLanguage = "en"

    public enum LoadError: Error, CustomStringConvertible, Equatable {
        case unreadable(path: String, reason: String)
        case missingText(path: String, text: String)
        case unknownPlaceholder(path: String, text: String, placeholder: String)

        public var description: String {
            switch self {
            case .unreadable(let path, let reason):
                "cannot read the shield defaults \(path): \(reason)"
            case .missingText(let path, let text):
                "the shield defaults \(path) have no text for '\(text)' (every shield needs one)"
            case .unknownPlaceholder(let path, let text, let placeholder):
                """
                the shield defaults \(path) use an unknown placeholder {\(placeholder)} in the text for '\(text)' \
                (known: \
                \(ShieldDefaults.placeholders.sorted().map { "{\($0)}" }.joined(separator: ", ")))
                """
            }
        }
    }

    public var look: Look
    /// Text → its English template, placeholders not yet substituted.
    public var texts: [Text: String]

    public init(look: Look, texts: [Text: String]) {
        self.look = look
        self.texts = texts
    }

    // MARK: Loading

    private struct File: Decodable {
        var look: Look
        var texts: [String: String]
    }

    /// The file the agent uses: `shield.json` in the data directory.
    public static func load(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        executable: URL = URL(fileURLWithPath: CommandLine.arguments.first ?? "/").resolvingSymlinksInPath()
    ) throws -> ShieldDefaults {
        try load(from: try DataDirectory.url(of: "shield.json", environment: environment, executable: executable))
    }

    public static func load(from url: URL) throws -> ShieldDefaults {
        let file: File
        do {
            file = try JSONDecoder().decode(File.self, from: Data(contentsOf: url))
        } catch let error as DecodingError {
            throw LoadError.unreadable(path: url.path, reason: error.readableDescription)
        } catch {
            throw LoadError.unreadable(path: url.path, reason: error.localizedDescription)
        }
        var texts: [Text: String] = [:]
        for (key, value) in file.texts {
            guard let text = Text(rawValue: key) else {
                throw LoadError.unreadable(
                    path: url.path,
                    reason: "unknown text '\(key)' (known: \(Text.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            if let unknown = Self.placeholderNames(in: value).first(where: { !placeholders.contains($0) }) {
                throw LoadError.unknownPlaceholder(path: url.path, text: key, placeholder: unknown)
            }
            if !value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { texts[text] = value }
        }
        for text in Text.required where texts[text] == nil {
            throw LoadError.missingText(path: url.path, text: text.rawValue)
        }
        return ShieldDefaults(look: file.look, texts: texts)
    }

    // MARK: Languages and texts

    /// The language of shield texts: gettext's choice (`Translations.language`: LANGUAGE, then
    /// LC_ALL, LC_MESSAGES or LANG; `vi_VN.UTF-8` → `vi`), `en` for C/POSIX or an unset locale.
    public static func language(fromEnvironment environment: [String: String] = ProcessInfo.processInfo.environment)
        -> String
    {
        Translations.language(fromEnvironment: environment)
    }

    /// `text` in `language` (English when no catalog translates it), placeholders
    /// substituted; nil for a text the file does not give (only the optional ones may be
    /// missing). A placeholder with no value given stays as written.
    public func text(_ text: Text, language: String, values: [String: String]) -> String? {
        texts[text].map { Translations.forLanguage(language)($0, context: text.rawValue, values) }
    }

    /// Replaces each `{name}` with its value, in one pass: a value that itself contains
    /// `{…}` (an application named "{category}") is not substituted again.
    public static func substitute(_ template: String, _ values: [String: String]) -> String {
        Translations.fill(template, values)
    }

    static func placeholderNames(in template: String) -> [String] {
        var names: [String] = []
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            names.append(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return names
    }

    // MARK: Merging

    /// The default shield for `subject`, every field filled in: what a shield shows when
    /// its app has no data source, or before the data source answers.
    public func defaultConfiguration(for subject: ShieldSubject, language: String) -> ShieldConfiguration {
        let values = subject.placeholderValues
        let subtitle = subject.categoryName == nil ? Text.subtitle : Text.subtitleInCategory
        return ShieldConfiguration(
            backgroundBlurStyle: look.backgroundBlurStyle,
            backgroundColor: look.backgroundColor,
            icon: look.icon,
            title: label(.title, language, values, look.titleColor),
            subtitle: label(subtitle, language, values, look.subtitleColor),
            primaryButtonLabel: label(.primaryButton, language, values, look.primaryButtonLabelColor),
            primaryButtonBackgroundColor: look.primaryButtonBackgroundColor,
            secondaryButtonLabel: label(.secondaryButton, language, values, look.secondaryButtonLabelColor))
    }

    /// `configuration` (an app's answer) over the defaults: each nil field takes the
    /// default. The app's own texts are shown as given (no placeholders substituted).
    /// A nil `secondaryButtonLabel` means no secondary button (unless the file gives a default one).
    public func resolve(_ configuration: ShieldConfiguration, for subject: ShieldSubject, language: String)
        -> ResolvedShield
    {
        let base = defaultConfiguration(for: subject, language: language)
        let fallbackLabel = ShieldConfiguration.Label(text: subject.name, color: look.titleColor)
        return ResolvedShield(
            backgroundBlurStyle: configuration.backgroundBlurStyle ?? look.backgroundBlurStyle,
            backgroundColor: configuration.backgroundColor ?? look.backgroundColor,
            icon: configuration.icon ?? look.icon,
            title: configuration.title ?? base.title ?? fallbackLabel,
            subtitle: configuration.subtitle ?? base.subtitle ?? fallbackLabel,
            primaryButtonLabel: configuration.primaryButtonLabel ?? base.primaryButtonLabel ?? fallbackLabel,
            primaryButtonBackgroundColor: configuration.primaryButtonBackgroundColor
                ?? look.primaryButtonBackgroundColor,
            secondaryButtonLabel: configuration.secondaryButtonLabel ?? base.secondaryButtonLabel,
            windowTitle: text(.windowTitle, language: language, values: subject.placeholderValues) ?? subject.name)
    }

    private func label(_ text: Text, _ language: String, _ values: [String: String], _ color: ShieldColor)
        -> ShieldConfiguration.Label?
    {
        self.text(text, language: language, values: values).map { ShieldConfiguration.Label(text: $0, color: color) }
    }
}

/// What a shield covers, as its texts name it.
public struct ShieldSubject: Hashable, Codable, Sendable {
    /// The application's display name, or the web domain.
    public var name: String
    /// The category's display name when the shield is up because of a category.
    public var categoryName: String?

    public init(name: String, categoryName: String? = nil) {
        self.name = name
        self.categoryName = categoryName
    }

    var placeholderValues: [String: String] {
        var values = ["app": name]
        if let categoryName { values["category"] = categoryName }
        return values
    }
}

/// A shield with every field decided: what the shield window draws.
public struct ResolvedShield: Hashable, Codable, Sendable {
    public var backgroundBlurStyle: ShieldBlurStyle
    public var backgroundColor: ShieldColor
    public var icon: ShieldIcon
    public var title: ShieldConfiguration.Label
    public var subtitle: ShieldConfiguration.Label
    public var primaryButtonLabel: ShieldConfiguration.Label
    public var primaryButtonBackgroundColor: ShieldColor
    /// nil: the shield has no secondary button.
    public var secondaryButtonLabel: ShieldConfiguration.Label?
    /// The shield window's title (it names the covered application).
    public var windowTitle: String

    public init(
        backgroundBlurStyle: ShieldBlurStyle, backgroundColor: ShieldColor, icon: ShieldIcon,
        title: ShieldConfiguration.Label, subtitle: ShieldConfiguration.Label,
        primaryButtonLabel: ShieldConfiguration.Label, primaryButtonBackgroundColor: ShieldColor,
        secondaryButtonLabel: ShieldConfiguration.Label?, windowTitle: String
    ) {
        self.backgroundBlurStyle = backgroundBlurStyle
        self.backgroundColor = backgroundColor
        self.icon = icon
        self.title = title
        self.subtitle = subtitle
        self.primaryButtonLabel = primaryButtonLabel
        self.primaryButtonBackgroundColor = primaryButtonBackgroundColor
        self.secondaryButtonLabel = secondaryButtonLabel
        self.windowTitle = windowTitle
    }
}
