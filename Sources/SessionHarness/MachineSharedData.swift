import Foundation
import ScreenwardCore

/// The machine's shared data folders (`/usr/local/share`, `/usr/share`) as a test's
/// `XDG_DATA_DIRS`: icon themes, the MIME database, GSettings schemas and themes, so a GTK
/// program under test draws as it would in a person's session, but not the machine's desktop
/// entries (`applications`) nor the apps an installed Screenward knows (`screenward`). The
/// applications a test's programs list are then only those the test installs in its
/// `XDG_DATA_HOME`, however many the machine has.
public enum MachineSharedData {
    public static let folders = SharedDataDirectories.from([:])
    /// What a test never sees of the machine's.
    public static let left = ["applications", "screenward"]

    /// Makes, under `folder`, a view of each machine folder with every entry linked in but
    /// those `left`; returns them as an `XDG_DATA_DIRS` value.
    public static func withoutApplications(in folder: URL) throws -> String {
        let manager = FileManager.default
        var views: [String] = []
        for (index, machineFolder) in folders.enumerated() {
            let view = folder.appendingPathComponent("shared-\(index)")
            try manager.createDirectory(at: view, withIntermediateDirectories: true)
            for entry in (try? manager.contentsOfDirectory(atPath: machineFolder)) ?? [] where !left.contains(entry) {
                let link = view.appendingPathComponent(entry)
                if (try? manager.destinationOfSymbolicLink(atPath: link.path)) == nil {
                    try manager.createSymbolicLink(atPath: link.path, withDestinationPath: "\(machineFolder)/\(entry)")
                }
            }
            views.append(view.path)
        }
        return views.joined(separator: ":")
    }
}
