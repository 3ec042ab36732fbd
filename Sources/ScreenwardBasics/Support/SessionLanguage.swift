import Synchronization

/// The language a program speaks in, when it can change while the program runs: a managed
/// session's agent is started by the daemon (with the daemon's environment), and learns its
/// session's language from the daemon, which hears it from the session's tray. Read where a
/// text is made, so that a change shows on the next text.
public final class SessionLanguage: Sendable {
    private let language: Mutex<String>

    public init(_ language: String) {
        self.language = Mutex(Translations.isLanguageCode(language) ? language : "en")
    }

    public var current: String { language.withLock { $0 } }

    /// Takes `language` if it is one (`Translations.isLanguageCode`); says whether it changed.
    @discardableResult
    public func set(_ language: String) -> Bool {
        guard Translations.isLanguageCode(language) else { return false }
        return self.language.withLock { current in
            defer { current = language }
            return current != language
        }
    }
}
