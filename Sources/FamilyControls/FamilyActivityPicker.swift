import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardIPC

/// The activity picker: a dialog in which the person chooses applications, whole categories
/// and websites; the app gets its own tokens for them and nothing else.
///
/// ```swift
/// let picker = FamilyActivityPicker(selection: model.selectionToDiscourage, headerText: "Apps to limit")
/// if let chosen = try await picker.present() { model.selectionToDiscourage = chosen }
/// ```
///
/// Apple's picker is a SwiftUI view drawn out of the app's process; here it is a window of its
/// own (`screenward-picker`, GTK) that the state owner shows on the person's display and waits
/// for (`picker.present`): the agent in a person's own account, the managed session's agent
/// (as its own system user) for the daemon in an account a guardian manages. The ids chosen
/// go from the picker to the owner, which answers the app with its tokens: they never reach
/// the app's process.
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
        let client = ScreenwardApp.client
        do {
            let presentation = PickerPresentation(selection: selection, headerText: headerText, footerText: footerText)
            // The person may take their time: the owner's picker waits for them, not for a timeout.
            switch try await client.call(AuthorizationMethods.presentPicker, presentation, timeout: .seconds(24 * 3600))
            {
            case .chosen(let chosen): return chosen
            case .cancelled: return nil
            case .chooseHere(let ticked):
                let environment = ProcessInfo.processInfo.environment
                guard let display = environment["DISPLAY"], !display.isEmpty else {
                    throw FamilyActivityPickerError.noDisplay
                }
                let run = PickerRun(
                    program: try PickerProgram.locate(environment: environment), ticked: ticked,
                    headerText: headerText, footerText: footerText)
                guard let chosen = try await run.result() else { return nil }
                return try await client.call(AuthorizationMethods.issueSelection, chosen)
            }
        } catch let error as ServiceError where error.code == .pickerUnavailable {
            throw FamilyActivityPickerError.pickerFailed(error.message)
        } catch let error as ServiceError {
            throw FamilyControlsError.thrown(error)
        }
    }
}

public enum FamilyActivityPickerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No X display to show the picker on (no desktop session of the person's, or DISPLAY
    /// is not set where the app shows it itself).
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
