import Foundation
import ScreenwardBasics

/// The words of the guardian's dialog (the agent shows it in a child's session), written in
/// English and shown in the session's language through gettext's catalogs (po/). The
/// daemon's verdicts (a wrong code, a wait) come in its own words.
public struct GuardianDialogTexts: Sendable, Equatable {
    /// The window's title.
    public var title: String
    public var explanation: String
    public var notEnrolledHint: String
    public var guardian: String
    public var code: String
    public var codePlaceholder: String
    public var cancel: String
    public var approve: String
    public var checking: String
    public var chooseGuardian: String
    /// What the field held was not a code (the login password by habit, say): nothing
    /// was sent.
    public var notACode: String

    public static let english = forLanguage("en")

    /// The texts in `language`, through gettext's catalogs (po/, each in the context
    /// `guardianDialog.FIELD`); English where a catalog has no translation.
    public static func forLanguage(_ language: String) -> GuardianDialogTexts {
        let texts = Translations.forLanguage(language)
        // One literal per text, on one line, for scripts/update-translations.sh.
        // swift-format-ignore
        return GuardianDialogTexts(
            title: texts("Screenward: a guardian's approval", context: "guardianDialog.title"),
            explanation: texts("A guardian approves with the 6-digit code their authenticator app shows for Screenward. Never type a password here.", context: "guardianDialog.explanation"),
            notEnrolledHint: texts("No authenticator set up? Approve from your own account (your Screenward tray, or `screenward request approve`), or set one up there with `screenward guardian enroll`.", context: "guardianDialog.notEnrolledHint"),
            guardian: texts("Guardian", context: "guardianDialog.guardian"),
            code: texts("One-time code", context: "guardianDialog.code"),
            codePlaceholder: texts("6-digit code", context: "guardianDialog.codePlaceholder"),
            cancel: texts("Cancel", context: "guardianDialog.cancel"),
            approve: texts("Approve", context: "guardianDialog.approve"),
            checking: texts("Checking…", context: "guardianDialog.checking"),
            chooseGuardian: texts("Choose a guardian's account.", context: "guardianDialog.chooseGuardian"),
            notACode: texts("That is not a code: type the 6 digits your authenticator app shows for Screenward.", context: "guardianDialog.notACode"))
    }
}
