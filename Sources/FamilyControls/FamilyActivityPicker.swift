import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardIPC

/// The activity picker: a dialog in which the person chooses applications and whole
/// categories; the app keeps its own tokens for them. (The picker hands the ids chosen to the
/// app's process, which exchanges them for its tokens: the app can see them. Issuing tokens
/// through the owner alone is not built yet.)
///
/// ```swift
/// let picker = FamilyActivityPicker(selection: model.selectionToDiscourage, headerText: "Apps to limit")
/// if let chosen = try await picker.present() { model.selectionToDiscourage = chosen }
/// ```
///
/// Apple's picker is a SwiftUI view; here it is a window of its own (`screenward-picker`,
/// GTK), which a command-line or GTK app presents and waits for. The picker only reports
/// the ids chosen; the app then asks the state owner for its tokens over its own
/// connection, so in an account a guardian manages (where only the vetted app may talk to
/// the daemon) the tokens are still issued to the app.
public struct FamilyActivityPicker: Sendable {
    /// What shows ticked when the picker opens (the app's own tokens).
    public var selection: FamilyActivitySelection
    /// A line above the list saying what the choice is for.
    public var headerText: String?
    /// A line below the list, for what the person should know about the choice.
    public var footerText: String?

    public init(
        selection: FamilyActivitySelection = FamilyActivitySelection(), headerText: String? = nil,
        footerText: String? = nil
    ) {
        self.selection = selection
        self.headerText = headerText
        self.footerText = footerText
    }

    /// Apple's order of arguments.
    public init(headerText: String? = nil, footerText: String? = nil, selection: FamilyActivitySelection) {
        self.init(selection: selection, headerText: headerText, footerText: footerText)
    }

    /// Shows the picker and waits: the new selection after Done, nil after Cancel.
    ///
    /// Throws `FamilyActivityPickerError` when there is no display or the picker is not
    /// installed, and `FamilyControlsError` when the app is not authorised.
    public func present() async throws -> FamilyActivitySelection? {
        let environment = ProcessInfo.processInfo.environment
        guard let display = environment["DISPLAY"], !display.isEmpty else { throw FamilyActivityPickerError.noDisplay }
        let program = try PickerProgram.locate(environment: environment)
        do {
            let client = ScreenwardApp.client
            var ticked = SelectionRequest(includeEntireCategory: selection.includeEntireCategory)
            if selection != FamilyActivitySelection(includeEntireCategory: selection.includeEntireCategory) {
                let description = try await client.call(AuthorizationMethods.describeSelection, selection)
                for line in description.skipped { ScreenwardApp.report("the activity picker leaves out \(line)") }
                ticked = description.items
            }
            guard
                let chosen = try await PickerRun(
                    program: program, ticked: ticked, headerText: headerText, footerText: footerText
                )
                .result()
            else { return nil }
            return try await client.call(AuthorizationMethods.issueSelection, chosen)
        } catch let error as ServiceError {
            throw FamilyControlsError.thrown(error)
        }
    }
}

public enum FamilyActivityPickerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No X display to show the picker on (DISPLAY is not set).
    case noDisplay
    /// `screenward-picker` cannot be found.
    case pickerNotInstalled(String)
    /// The picker could not run or ended with an error (its message).
    case pickerFailed(String)

    public var description: String {
        switch self {
        case .noDisplay: "the activity picker needs a desktop session: DISPLAY is not set"
        case .pickerNotInstalled(let why): why
        case .pickerFailed(let why): "the activity picker failed: \(why)"
        }
    }
}
