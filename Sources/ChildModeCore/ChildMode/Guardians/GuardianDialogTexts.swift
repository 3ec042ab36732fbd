import Foundation
import ScreenwardBasics

/// The words of the guardian's dialog (the agent shows it in a child's session), written in
/// English and shown in the session's language through gettext's catalogs (po/). The
/// daemon's verdicts (a wrong code, a wait) come in its own words.
public struct GuardianDialogTexts: Sendable, Equatable {
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

    public static let english = GuardianDialogTexts(
        explanation:
            """
            A guardian approves with the 6-digit code their authenticator app shows for Screenward. \
            Never type a password here.
            """,
        notEnrolledHint:
            """
            No authenticator set up? Approve from your own account (your Screenward tray, or \
            `screenward request approve`), or set one up there with `screenward guardian enroll`.
            """,
        guardian: "Guardian", code: "One-time code", codePlaceholder: "6-digit code", cancel: "Cancel",
        approve: "Approve", checking: "Checking…",
        chooseGuardian: "Choose a guardian's account.",
        notACode: "That is not a code: type the 6 digits your authenticator app shows for Screenward.")

    /// The texts in `language`, through gettext's catalogs (po/, each in the context
    /// `guardianDialog.FIELD`); English where a catalog has no translation.
    public static func forLanguage(_ language: String) -> GuardianDialogTexts {
        let translate = Translations.forLanguage(language)
        func tr(_ text: String, _ field: String) -> String { translate(text, context: "guardianDialog.\(field)") }
        let english = Self.english
        return GuardianDialogTexts(
            explanation: tr(english.explanation, "explanation"),
            notEnrolledHint: tr(english.notEnrolledHint, "notEnrolledHint"), guardian: tr(english.guardian, "guardian"),
            code: tr(english.code, "code"), codePlaceholder: tr(english.codePlaceholder, "codePlaceholder"),
            cancel: tr(english.cancel, "cancel"), approve: tr(english.approve, "approve"),
            checking: tr(english.checking, "checking"), chooseGuardian: tr(english.chooseGuardian, "chooseGuardian"),
            notACode: tr(english.notACode, "notACode"))
    }
}
