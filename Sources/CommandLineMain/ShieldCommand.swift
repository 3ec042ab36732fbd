import ArgumentParser
@_spi(Screenward) import FamilyControls
import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardCore
import ScreenwardIPC

/// Shielding from the command line without writing code: the command line is a Screen
/// Time client of its own, `org.screenward.cli`, with one settings store, `screenward.cli`.
///
/// The person typing is the person whose use is managed, so the command authorises
/// itself with `.individual`, exactly as an app does with
/// `AuthorizationCenter.shared.requestAuthorization(for: .individual)`: the agent asks
/// nobody else for `.individual`. Its store counts in the union like any app's store
/// (`screenward shields` names it `org.screenward.cli/screenward.cli`).
struct ShieldCommand: ParsableCommand {
    // swift-format-ignore
    static let configuration = CommandConfiguration(
        commandName: "shield",
        abstract: texts("Shield applications from the command line (the settings store screenward.cli).", context: "help"),
        discussion: texts("The command line acts as the Screen Time client org.screenward.cli, authorised as the person themself (.individual), and changes its one settings store, screenward.cli. Other apps' stores are untouched: `screenward shields` shows the union of all. Application ids are as `screenward usage --json` shows them (firefox.desktop, wmclass:<class>). The agent must run.", context: "help"),
        subcommands: [Add.self, Remove.self])

    static let client = "org.screenward.cli"
    static let storeName = "screenward.cli"

    struct Add: ParsableCommand {
        // swift-format-ignore
        static let configuration = CommandConfiguration(
            abstract: texts("Shield applications: add them to the store screenward.cli.", context: "help"),
            discussion: texts("Applications the store already shields stay shielded; the command prints what the store shields now.", context: "help"))

        @OptionGroup var options: ApplicationOptions

        func run() throws {
            try CLIStore().add(options.ids, to: .shielded)
        }
    }

    struct Remove: ParsableCommand {
        // swift-format-ignore
        static let configuration = CommandConfiguration(
            abstract: texts("Stop shielding applications: remove them from the store screenward.cli.", context: "help"),
            discussion: texts("Only the store screenward.cli changes: an application another app's store shields stays shielded (the command says which store). Nothing changes when a named application is not shielded by screenward.cli.", context: "help"))

        @OptionGroup var options: ApplicationOptions

        func run() throws {
            try CLIStore().remove(options.ids, from: .shielded)
        }
    }
}
