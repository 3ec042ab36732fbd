import Foundation
import ScreenwardCore

/// The words of the dialog in which a person allows an app Screen Time access in their own
/// session, written in English and shown in the session's language through gettext's
/// catalogs (po/).
public struct AccessDialogTexts: Sendable, Equatable {
    /// The window's title.
    public var title: String
    /// "“{app}” would like to access Screen Time".
    public var question: String
    public var explanation: String
    /// "Program: {program}".
    public var program: String
    /// Said of an app no installed manifest names: only the name it gave itself is known.
    public var notInstalled: String
    /// "Your password ({user})".
    public var password: String
    public var dontAllow: String
    public var allow: String
    public var checking: String
    public var wrongPassword: String

    public static let english = forLanguage("en")

    /// The texts in `language`, through gettext's catalogs (po/, each in the context
    /// `accessDialog.FIELD`); English where a catalog has no translation.
    public static func forLanguage(_ language: String) -> AccessDialogTexts {
        let texts = Translations.forLanguage(language)
        // One literal per text, on one line, for scripts/update-translations.sh.
        // swift-format-ignore
        return AccessDialogTexts(
            title: texts("Screenward: Screen Time access", context: "accessDialog.title"),
            question: texts("“{app}” would like to access Screen Time", context: "accessDialog.question"),
            explanation: texts("Allowing it lets the app see how long you use the apps and websites you choose for it, set limits on them and shield them. You can take it back at any time with the command “screenward app revoke”.", context: "accessDialog.explanation"),
            program: texts("Program: {program}", context: "accessDialog.program"),
            notInstalled: texts("It is not installed as a Screenward app: the name above is only the one it gives itself.", context: "accessDialog.notInstalled"),
            password: texts("Your _password ({user})", context: "accessDialog.password"),
            dontAllow: texts("Don’t Allow", context: "accessDialog.dontAllow"),
            allow: texts("Allow", context: "accessDialog.allow"),
            checking: texts("Checking…", context: "accessDialog.checking"),
            wrongPassword: texts("That is not your password. Try again.", context: "accessDialog.wrongPassword"))
    }
}
