import ArgumentParser
@_spi(Screenward) import FamilyControls
import Foundation
import ScreenwardCore
import ScreenwardIPC

/// The activity picker's stand-in on the command line: the agent issues the app's
/// tokens for the items named, and the selection is printed for the app to load.
struct SelectCommand: ParsableCommand {
    // swift-format-ignore
    static let configuration = CommandConfiguration(
        commandName: "select",
        abstract: texts("Print a FamilyActivitySelection (JSON) with an app's tokens for the items named.", context: "help"),
        discussion: texts("The command-line stand-in for the activity picker. The agent must run and the app must already be authorised (AuthorizationCenter.shared.requestAuthorization(for: .individual)). Application ids are as `screenward usage --json` shows them (firefox.desktop, wmclass:<class>); category ids are those of the category table (data/categories.json: Social, Game, AudioVideo, Office, Other, …; the agent lists them when one is wrong). The tokens are the app's own: decode the output with JSONDecoder as a FamilyActivitySelection.", context: "help"))

    // swift-format-ignore
    @Option(
        name: .customLong("for"),
        help: ArgumentHelp(texts("The bundle identifier of the app the tokens are for.", context: "help"), valueName: "bundle-id"))
    var bundleIdentifier: String

    // swift-format-ignore
    @Option(name: .customLong("app"), help: ArgumentHelp(texts("An application id (repeatable).", context: "help"), valueName: "id"))
    var applications: [String] = []

    // swift-format-ignore
    @Option(name: .customLong("category"), help: ArgumentHelp(texts("An activity category id (repeatable).", context: "help"), valueName: "id"))
    var categories: [String] = []

    // swift-format-ignore
    @Option(name: .customLong("domain"), help: ArgumentHelp(texts("A web domain (repeatable).", context: "help"), valueName: "domain"))
    var webDomains: [String] = []

    // swift-format-ignore
    @Flag(help: ArgumentHelp(texts("Picking a category also picks each of its members (FamilyActivitySelection.includeEntireCategory).", context: "help")))
    var includeEntireCategory = false

    func validate() throws {
        do {
            try BundleIdentifier.validate(bundleIdentifier)
        } catch let error as ServiceError {
            throw ValidationError(ScreenwardCommand.spoken(error))
        }
        guard !(applications.isEmpty && categories.isEmpty && webDomains.isEmpty) else {
            // swift-format-ignore
            throw ValidationError(texts("nothing to select: name at least one --app, --category or --domain", context: "cli"))
        }
    }

    var request: SelectionRequest {
        SelectionRequest(
            applications: applications, categories: categories, webDomains: webDomains,
            includeEntireCategory: includeEntireCategory)
    }

    func run() throws {
        let agent = AgentConnection(bundleIdentifier: bundleIdentifier)
        defer { agent.close() }
        let selection = try agent.call(AuthorizationMethods.issueSelection, request)
        try printJSON(selection)
    }
}
