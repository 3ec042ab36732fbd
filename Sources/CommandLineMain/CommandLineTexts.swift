import ArgumentParser
import CommandLineSupport
import Foundation
import ScreenwardCore
import ScreenwardIPC

/// The command line's texts, in its session's language (gettext's choice: `LANGUAGE`,
/// `LC_ALL`, `LC_MESSAGES`, `LANG`). Its own are written `texts("…", context: "cli")`; the
/// agent's and the daemon's come as `Phrase`s and are translated here, where the reader's
/// language is known.
let texts = Translations.session

/// An error of the command line's own, its message already in the reader's language.
struct CLIError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension ScreenwardCommand {
    /// `error`'s message in the reader's language when it came as a phrase; else as it is.
    static func spoken(_ error: any Error) -> String {
        CommandLineSupport.spoken(error, in: texts)
    }
}

/// The locale dates and times are written in, to match the texts around them: the session's
/// own (`LC_ALL`, `LC_TIME` or `LANG`: `en_GB` writes 24-hour times) when it speaks the texts'
/// language, else that language's. (Foundation's `Locale.current` does not follow `LANG` here.)
let writtenLocale: Locale = {
    let environment = ProcessInfo.processInfo.environment
    let session = [environment["LC_ALL"], environment["LC_TIME"], environment["LANG"]].lazy.compactMap { $0 }.first {
        !$0.isEmpty
    }
    let identifier = session.map { String($0.prefix { $0 != "." && $0 != "@" }) } ?? ""
    let language = identifier.prefix { $0 != "_" }.lowercased()
    return Locale(identifier: language == texts.language ? identifier : texts.language)
}()
