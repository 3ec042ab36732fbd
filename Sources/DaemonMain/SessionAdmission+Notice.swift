import ScreenwardCore
import ScreenwardIPC

extension SessionAdmission.Door {
    /// What a managed user is told in their next desktop session about a session of theirs
    /// that was ended, in `language`.
    func notice(in language: String) -> RulesApp.Notice {
        let speak = Translations.forLanguage(language)
        switch self {
        case .wayland:
            // swift-format-ignore
            let body = Phrase("Screenward can look after X11 and sway sessions only, for now. At the login screen, choose one of those.", context: "notice")
            return RulesApp.Notice(
                title: speak(Phrase("Your session was ended", context: "notice")), body: speak(body))
        case .console:
            return RulesApp.Notice(
                title: speak(Phrase("Your console login was ended", context: "notice")),
                body: speak(Phrase("Your account can be used on the desktop only.", context: "notice")))
        }
    }
}
