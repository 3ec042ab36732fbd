import Foundation

/// What installing an example app's package does: writes its manifest (docs/extensions.md)
/// naming this very program, so Screenward starts its extensions when it needs them.
public enum ManifestInstaller {
    /// Writes `<bundleIdentifier>.json` into this person's apps folder, or with `system`
    /// into `/usr/share/screenward/apps` (root only); `extensions` maps each extension
    /// point to the arguments this program takes to run it. Returns the file written.
    public static func install(
        bundleIdentifier: String, displayName: String, extensions: [(point: String, arguments: [String])], system: Bool
    ) throws -> (file: URL, program: String) {
        let program = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let folder: URL
        if system {
            folder = URL(fileURLWithPath: "/usr/share/screenward/apps", isDirectory: true)
        } else {
            let environment = ProcessInfo.processInfo.environment
            let dataHome =
                environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? NSHomeDirectory()
                + "/.local/share"
            folder = URL(fileURLWithPath: dataHome).appendingPathComponent("screenward/apps", isDirectory: true)
        }
        let manifest: [String: Any] = [
            "format": 1, "bundleIdentifier": bundleIdentifier, "displayName": displayName, "executables": [program],
            "extensions": extensions.map { ["point": $0.point, "executable": program, "arguments": $0.arguments] },
        ]
        do {
            try FileManager.default.createDirectory(
                at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            let file = folder.appendingPathComponent("\(bundleIdentifier).json")
            try JSONSerialization.data(withJSONObject: manifest, options: [.prettyPrinted, .sortedKeys]).write(
                to: file, options: .atomic)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
            return (file, program)
        } catch {
            throw InstallFailure(
                description:
                    "could not install \(displayName)'s manifest in \(folder.path): \(error.localizedDescription)")
        }
    }

    public struct InstallFailure: Error, CustomStringConvertible {
        public let description: String
    }
}
