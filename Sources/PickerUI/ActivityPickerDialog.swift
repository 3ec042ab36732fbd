import CGtk
import Foundation
import GtkBase
import ScreenwardCore

public enum PickerUIError: Error, CustomStringConvertible, Equatable {
    case noDisplay(String)

    public var description: String {
        switch self {
        case .noDisplay(let name):
            """
            cannot open the X display \(name) for the activity picker: it needs a desktop session (DISPLAY, and \
            XAUTHORITY when the server asks for one)
            """
        }
    }
}

/// The activity picker (Apple's FamilyActivityPicker) as a GTK dialog.
public enum ActivityPickerDialog {
    /// Starts GTK on `displayName` (nil: $DISPLAY); call it early, so a missing display is
    /// said before anything else is done.
    public static func prepare(displayName: String?) throws {
        do {
            try GtkToolkit.initialize(displayName: displayName)
        } catch GtkToolkitError.noDisplay(let name) {
            throw PickerUIError.noDisplay(name)
        }
    }

    /// Shows the dialog with `choice` ticked and waits for the person: their choice after
    /// Done (or Enter), nil after Cancel, Escape or closing the window; with the catalog as
    /// it ended (websites typed are listed there).
    ///
    /// With `SCREENWARD_PICKER_TRACE` in the environment, writes `PickerTraceLine`s to
    /// standard error.
    public static func run(
        _ source: PickerSourceContents, choice: PickerChoice, header: String?, footer: String? = nil,
        displayName: String?
    ) throws -> (choice: PickerChoice, catalog: PickerCatalog)? {
        try prepare(displayName: displayName)
        let traced = ProcessInfo.processInfo.environment["SCREENWARD_PICKER_TRACE"] != nil
        final class Outcome { var choice: PickerChoice? }
        let outcome = Outcome()
        let window = PickerWindow(
            source: source, choice: choice, header: header, footer: footer,
            trace: traced ? PickerTrace(applications: source.catalog.applicationCount) : nil
        ) { chosen in
            outcome.choice = chosen
            gtk_main_quit()
        }
        gtk_main()
        return withExtendedLifetime(window) { outcome.choice.map { ($0, window.catalog) } }
    }
}
