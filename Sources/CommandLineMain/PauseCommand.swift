import ArgumentParser
import Foundation
import ScreenwardCore
import ScreenwardIPC

/// `screenward pause --for 1h [--user USER]`: no rule shields anything for a while.
struct PauseCommand: ParsableCommand {
    // swift-format-ignore
    static let configuration = CommandConfiguration(
        commandName: "pause", abstract: texts("Pause every limit and downtime for a while (a managed user's: guardians).", context: "help"))

    // swift-format-ignore
    @Option(name: .customLong("for"), help: ArgumentHelp(texts("How long: 1h, 30m.", context: "help"), valueName: "duration")) var duration = "1h"
    @OptionGroup var options: RulesOptions

    func run() throws {
        let seconds: TimeInterval
        let pause = Phrase("pause", context: "rule.what")  // the error calls it so: "… is not a pause"
        do { seconds = try RuleText.duration(duration, what: pause) } catch let invalid as RuleText.Invalid {
            throw ValidationError(ScreenwardCommand.spoken(invalid))
        }
        try options.change(RulesMethods.pause, PauseRequest(user: options.user, seconds: seconds))
    }
}
