import Foundation

/// Where the activity picker's program is: what `FamilyActivityPicker` runs, and what
/// `screenward pick` hands over to (the API and the command line never link GTK).
@_spi(Screenward) public enum PickerProgram {
    public static let name = "screenward-picker"

    /// `$SCREENWARD_PICKER` (a path), else beside the running executable (where the
    /// installer and `swift build` put Screenward's programs), else on `$PATH`.
    public static func locate(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> URL {
        let manager = FileManager.default
        if let chosen = environment["SCREENWARD_PICKER"], !chosen.isEmpty {
            guard manager.isExecutableFile(atPath: chosen) else {
                throw notFound("SCREENWARD_PICKER names \(chosen), which is not an executable file")
            }
            return URL(fileURLWithPath: chosen)
        }
        var directories: [String] = []
        if let me = try? manager.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            directories.append((me as NSString).deletingLastPathComponent)
        }
        directories += (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":").map(String.init)
            .filter { $0.hasPrefix("/") }
        for directory in directories {
            let candidate = URL(fileURLWithPath: directory).appendingPathComponent(name)
            if manager.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw notFound("\(name) is not installed beside this program nor on PATH")
    }

    private static func notFound(_ why: String) -> FamilyActivityPickerError {
        .pickerNotInstalled(
            "\(why): install Screenward (its Debian package, or scripts/install.sh), or set SCREENWARD_PICKER to it")
    }
}
