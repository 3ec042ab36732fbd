import ArgumentParser
import Foundation
import ScreenwardBasics
import ScreenwardIPC

/// Screenward's programs run from a command line (`screenward`, and the report, tray and
/// picker it and the desktop start) tell what goes wrong in the reader's language.
extension ParsableCommand {
    /// Parses and runs the command. What ArgumentParser writes while parsing (`--help`, a missing
    /// argument, a `validate()` error, with the usage) keeps its text, its frame translated
    /// (`ArgumentParserFrame`); an error from `run()` is told `Error: …` in `texts`' language,
    /// an agent's or daemon's phrase translated too.
    public static func runSpeaking(_ texts: Translations, arguments: [String]? = nil) -> Never {
        var command: any ParsableCommand
        do {
            command = try parseAsRoot(arguments)
        } catch {
            exitAsTheLibraryWould(error, texts)
        }
        do {
            try command.run()
            Foundation.exit(EXIT_SUCCESS)
        } catch  where String(reflecting: type(of: error)).hasPrefix("ArgumentParser.") {
            // Its own, from the command it parsed (`help`, `--help` after a subcommand).
            exitAsTheLibraryWould(error, texts)
        } catch let error as ExitCode {
            Foundation.exit(error.rawValue)
        } catch let error as CleanExit {
            exit(withError: error)
        } catch let error as ValidationError {
            // Thrown by `run()`: the root's usage, which ArgumentParser would add, says nothing
            // about it. Its status is the library's for a refused argument (EX_USAGE).
            tell(error.message, texts, status: .validationFailure)
        } catch {
            tell(spoken(error, in: texts), texts, status: .failure)
        }
    }

    /// What ArgumentParser would print for `error` (the help, or a refusal and the usage),
    /// its frame in `texts`' language, and its exit status.
    private static func exitAsTheLibraryWould(_ error: any Error, _ texts: Translations) -> Never {
        let text = ArgumentParserFrame.translated(fullMessage(for: error), by: texts)
        let status = exitCode(for: error)
        if !text.isEmpty {
            let stream = status == .success ? FileHandle.standardOutput : FileHandle.standardError
            stream.write(Data((text + "\n").utf8))
        }
        Foundation.exit(status.rawValue)
    }

    private static func tell(_ message: String, _ texts: Translations, status: ExitCode) -> Never {
        let line = texts("Error: {message}", context: "cli", ["message": message])
        FileHandle.standardError.write(Data((line + "\n").utf8))
        Foundation.exit(status.rawValue)
    }
}

/// `error`'s message in `texts`' language when it came as a phrase (an agent's or daemon's
/// `ServiceError`, any `PhrasedError`); else as it describes itself.
public func spoken(_ error: any Error, in texts: Translations) -> String {
    texts(Phrase.Value.said(by: error))
}
