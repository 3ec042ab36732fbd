import ArgumentParser
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
    /// Runs the command line; an error is told in the reader's language. ArgumentParser's own
    /// (a missing argument, `--help`) and a `validate()` error, met while parsing, keep its way
    /// of telling them (in English, with the usage).
    static func runTranslatingErrors(_ arguments: [String]? = nil) {
        var command: any ParsableCommand
        do {
            command = try parseAsRoot(arguments)
        } catch {
            exit(withError: error)
        }
        do {
            try command.run()
        } catch let error as ExitCode {
            exit(withError: error)
        } catch let error as CleanExit {
            exit(withError: error)
        } catch let error as ValidationError {
            // Thrown by `run()`: the root's usage, which ArgumentParser would add, says nothing
            // about it. Its status is the library's for a refused argument (EX_USAGE).
            tell(error.message, status: ExitCode.validationFailure)
        } catch {
            tell(spoken(error), status: ExitCode.failure)
        }
    }

    private static func tell(_ message: String, status: ExitCode) -> Never {
        let line = texts("Error: {message}", context: "cli", ["message": message])
        FileHandle.standardError.write(Data((line + "\n").utf8))
        Foundation.exit(status.rawValue)
    }

    /// `error`'s message in the reader's language when it came as a phrase; else as it is.
    static func spoken(_ error: any Error) -> String {
        switch error {
        case let error as ServiceError: error.phrase.map { texts($0) } ?? error.message
        case let error as any PhrasedError: texts(error.phrase)
        default: String(describing: error)
        }
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
