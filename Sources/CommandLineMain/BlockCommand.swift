import ArgumentParser

/// Blocking from the command line without writing code, as `screenward shield` shields:
/// the list `application.blockedApplications` of the command line's store `screenward.cli`.
struct BlockCommand: ParsableCommand {
    // swift-format-ignore
    static let configuration = CommandConfiguration(
        commandName: "block",
        abstract: texts("Block applications from the command line (the settings store screenward.cli).", context: "help"),
        discussion: texts("A blocked application may not be used at all: while the agent runs, its windows are closed as they appear and it is hidden from the menus. The command line acts as the Screen Time client org.screenward.cli, authorised as the person themself (.individual), and changes its one settings store, screenward.cli. Application ids are as `screenward usage --json` shows them. The agent must run.", context: "help"),
        subcommands: [Add.self, Remove.self])

    struct Add: ParsableCommand {
        // swift-format-ignore
        static let configuration = CommandConfiguration(
            abstract: texts("Block applications: add them to the blocked applications of the store screenward.cli.", context: "help"))

        @OptionGroup var options: ApplicationOptions

        func run() throws {
            try CLIStore().add(options.ids, to: .blocked)
        }
    }

    struct Remove: ParsableCommand {
        // swift-format-ignore
        static let configuration = CommandConfiguration(
            abstract: texts("Stop blocking applications: remove them from the blocked applications of the store screenward.cli.", context: "help"),
            discussion: texts("An application another app's store blocks stays blocked (the command says which store).", context: "help"))

        @OptionGroup var options: ApplicationOptions

        func run() throws {
            try CLIStore().remove(options.ids, from: .blocked)
        }
    }
}
