import ArgumentParser
@_spi(Screenward) import FamilyControls
import Foundation

/// `screenward pick`: the activity picker for an app, from the command line. The CLI
/// never links GTK, so it runs `screenward-picker` with the same arguments and ends as it does.
struct PickCommand: ParsableCommand {
    // swift-format-ignore
    static let configuration = CommandConfiguration(
        commandName: "pick",
        abstract: texts("Choose applications and categories for an app in the activity picker; print its FamilyActivitySelection.", context: "help"),
        discussion: texts("Opens the activity picker (a dialog: search, categories with their applications, a box to take a whole category) as the app named, which must be authorised like for `select`. Done writes the FamilyActivitySelection of the app's own tokens (JSON) to --output or standard output; Cancel writes nothing and exits with status 1. --current ticks an earlier selection's items, --header puts a line above the list. Runs screenward-picker with the same arguments, found beside this program or on PATH (or $SCREENWARD_PICKER).", context: "help"))

    /// Everything after `pick`, for screenward-picker as it is: one definition of the options
    /// (`screenward-picker --help` lists them), and "the same arguments" by construction.
    @Argument(
        parsing: .captureForPassthrough,
        help: ArgumentHelp("--for BUNDLE-ID [--output FILE] [--current FILE] [--header TEXT]", valueName: "options"))
    var arguments: [String] = []

    func run() throws {
        let program: URL
        do {
            program = try PickerProgram.locate()
        } catch let error as FamilyActivityPickerError {
            // The command's name, then why (in the reader's language where the error gives a phrase).
            FileHandle.standardError.write(Data("screenward pick: \(ScreenwardCommand.spoken(error))\n".utf8))
            throw ExitCode(69)  // EX_UNAVAILABLE
        }
        try SiblingProgram.run(program, arguments)
    }
}
