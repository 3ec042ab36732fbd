import ArgumentParser
import CommandLineSupport
@_spi(Screenward) import FamilyControls
import Foundation
import PickerUI
@_spi(Screenward) import ScreenwardCore
import ScreenwardIPC

/// The program's texts (its help, its errors), in the session's language.
private let texts = Translations.session

/// The activity picker's program: the dialog that `screenward pick` and apps'
/// `FamilyActivityPicker` open.
public struct PickerCommand: ParsableCommand {
    /// The descriptors it was handed made safe first (`ProgramStart`: closed standard streams
    /// opened on /dev/null, inherited descriptors fitted to the limit); then the command line.
    public static func main() {
        ProgramStart.prepare()
        runSpeaking(texts)
    }

    public init() {}

    // swift-format-ignore
    public static let configuration = CommandConfiguration(
        commandName: "screenward-picker",
        abstract: texts("Choose applications, categories and websites in a dialog (the activity picker).", context: "help"),
        discussion: texts("With --for BUNDLE-ID (what `screenward pick` runs): acts as that app, which must be authorised (individual mode), shows the dialog with --current's selection ticked, and writes the FamilyActivitySelection of the app's own tokens for what was chosen (JSON) to --output or standard output. With --choose (what FamilyActivityPicker runs): shows the dialog with --selected-json's ids ticked and prints the ids chosen as JSON ({\"applications\":[…],\"categories\":[…],\"webDomains\":[…],\"includeEntireCategory\":…}); the app then asks for its own tokens. Cancel (or Escape, or closing the window) writes nothing and exits with 1; 2: the agent refused or is not running; 3: no display; 64–73: bad arguments or files.", context: "help"))

    // swift-format-ignore
    @Option(name: .customLong("for"), help: ArgumentHelp(texts("The bundle identifier of the app the tokens are for.", context: "help"), valueName: "bundle-id"))
    var bundleIdentifier: String?

    // swift-format-ignore
    @Option(help: ArgumentHelp(texts("Where to write the selection (default: standard output).", context: "help"), valueName: "file"))
    var output: String?

    // swift-format-ignore
    @Option(help: ArgumentHelp(texts("A FamilyActivitySelection (JSON) of the app's tokens to show ticked.", context: "help"), valueName: "file"))
    var current: String?

    // swift-format-ignore
    @Flag(help: ArgumentHelp(texts("Print the ids chosen instead of tokens (for FamilyActivityPicker).", context: "help")))
    var choose = false

    // swift-format-ignore
    @Option(name: .customLong("selected-json"), help: ArgumentHelp(texts("With --choose: the ids to show ticked, as --choose prints them.", context: "help"), valueName: "json"))
    var selectedJSON: String?

    // swift-format-ignore
    @Flag(name: .customLong("seen-on-stdin"), help: ArgumentHelp(texts("With --choose: read what to list as seen in use from standard input (JSON), rather than from the ledger.", context: "help")))
    var seenOnStandardInput = false

    // swift-format-ignore
    @Option(help: ArgumentHelp(texts("A line above the list saying what the choice is for.", context: "help"), valueName: "text"))
    var header: String?

    // swift-format-ignore
    @Option(help: ArgumentHelp(texts("A line below the list, for what the person should know about the choice.", context: "help"), valueName: "text"))
    var footer: String?

    // swift-format-ignore
    @Option(help: ArgumentHelp(texts("The X display (default: $DISPLAY).", context: "help"), valueName: "name"))
    var display: String?

    public func validate() throws {
        switch (bundleIdentifier, choose) {
        case (nil, false):
            throw ValidationError(
                texts("say whose tokens to write with --for BUNDLE-ID, or print ids with --choose", context: "cli"))
        case (.some, true):
            throw ValidationError(texts("--for and --choose are two ways to run the picker: give one", context: "cli"))
        case (.some(let bundle), false):
            do { try BundleIdentifier.validate(bundle) } catch let error as ServiceError {
                throw ValidationError(spoken(error, in: texts))
            }
            if selectedJSON != nil || seenOnStandardInput {
                throw ValidationError(
                    texts("--selected-json goes with --choose; with --for, give --current FILE", context: "cli"))
            }
        case (nil, true):
            if output != nil || current != nil {
                throw ValidationError(texts("--output and --current go with --for", context: "cli"))
            }
        }
    }

    public func run() throws {
        do {
            if let bundleIdentifier {
                try pickTokens(for: bundleIdentifier)
            } else {
                try chooseIDs()
            }
        } catch let error as PickerFailure {
            FileHandle.standardError.write(Data("screenward-picker: \(error.message)\n".utf8))
            throw ExitCode(error.status)
        } catch let error as ServiceError {
            FileHandle.standardError.write(Data("screenward-picker: \(spoken(error, in: texts))\n".utf8))
            throw ExitCode(2)
        } catch let error as PickerUIError {
            // Not 1: that status means "cancelled" to FamilyActivityPicker and scripts.
            FileHandle.standardError.write(Data("screenward-picker: \(error)\n".utf8))
            throw ExitCode(3)
        }
    }

    /// Mode --for: the app's tokens, issued by the agent for what was chosen.
    private func pickTokens(for bundle: String) throws {
        try ActivityPickerDialog.prepare(displayName: display)
        let agent = AgentConnection(bundleIdentifier: bundle)
        defer { agent.close() }
        guard try agent.call(AuthorizationMethods.status, Empty()) == .approved else {
            // swift-format-ignore
            throw PickerFailure(texts("{bundle} is not authorised: the app calls AuthorizationCenter.shared.requestAuthorization(for: .individual) first", context: "cli", ["bundle": bundle]), status: 2)
        }
        var ticked = SelectionRequest()
        if let current {
            let description = try agent.call(AuthorizationMethods.describeSelection, try Self.readSelection(current))
            for line in description.skipped {
                FileHandle.standardError.write(Data("screenward-picker: left out \(line)\n".utf8))
            }
            ticked = description.items
        }
        guard let (chosen, catalog) = try present(ticked) else { throw PickerFailure.cancelled }
        let selection = try agent.call(AuthorizationMethods.issueSelection, chosen.request(in: catalog))
        try write(try Self.json(selection))
    }

    /// Mode --choose: the ids, for the app to turn into its own tokens.
    private func chooseIDs() throws {
        try ActivityPickerDialog.prepare(displayName: display)
        var ticked = SelectionRequest()
        if let selectedJSON {
            do {
                ticked = try JSONDecoder().decode(SelectionRequest.self, from: Data(selectedJSON.utf8))
            } catch {
                throw PickerFailure(
                    texts(
                        "--selected-json is not a selection of ids: {error}", context: "cli", ["error": readable(error)]
                    ),
                    status: 64)
            }
        }
        var seen: PickerSeen?
        if seenOnStandardInput {
            do {
                seen = try JSONDecoder().decode(PickerSeen.self, from: FileHandle.standardInput.readDataToEndOfFile())
            } catch {
                throw PickerFailure(
                    texts(
                        "standard input holds no list of what was seen in use: {error}", context: "cli",
                        ["error": readable(error)]),
                    status: 64)
            }
        }
        guard let (chosen, catalog) = try present(ticked, seen: seen) else { throw PickerFailure.cancelled }
        try write(try Self.json(chosen.request(in: catalog)))
    }

    private func present(_ ticked: SelectionRequest, seen: PickerSeen? = nil) throws -> (PickerChoice, PickerCatalog)? {
        let source = try PickerSource().load(alsoListing: ticked, seen: seen)
        for problem in source.problems { FileHandle.standardError.write(Data("screenward-picker: \(problem)\n".utf8)) }
        return try ActivityPickerDialog.run(
            source, choice: PickerChoice(ticked), header: header, footer: footer, displayName: display)
    }

    private static func readSelection(_ path: String) throws -> FamilyActivitySelection {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw PickerFailure(
                texts(
                    "cannot read the current selection {path}: {error}", context: "cli",
                    ["path": path, "error": error.localizedDescription]),
                status: 66)
        }
        do {
            return try JSONDecoder().decode(FamilyActivitySelection.self, from: data)
        } catch {
            throw PickerFailure(
                texts(
                    "{path} is not a FamilyActivitySelection (JSON): {error}", context: "cli",
                    ["path": path, "error": readable(error)]),
                status: 65)
        }
    }

    private static func json(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value) + Data("\n".utf8)
    }

    private func write(_ data: Data) throws {
        guard let output else {
            FileHandle.standardOutput.write(data)
            return
        }
        do {
            try data.write(to: URL(fileURLWithPath: output), options: .atomic)
        } catch {
            throw PickerFailure(
                texts(
                    "cannot write {path}: {error}", context: "cli",
                    ["path": output, "error": error.localizedDescription]),
                status: 73)
        }
    }
}

/// Why the picker ends without a choice, and its exit status.
struct PickerFailure: Error {
    var message: String
    var status: Int32

    init(_ message: String, status: Int32) {
        self.message = message
        self.status = status
    }

    static var cancelled: PickerFailure {
        PickerFailure(texts("cancelled: nothing was chosen, nothing written", context: "cli"), status: 1)
    }
}

private func readable(_ error: any Error) -> String {
    (error as? DecodingError)?.readableDescription ?? "\(error)"
}
