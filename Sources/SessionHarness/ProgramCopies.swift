import Foundation

/// Copies of the project's programs laid out as an installation is (`bin/`, `share/screenward`
/// for their data, `share/locale` for the translations), in a folder every user may read:
/// tests run them as other users, who may not reach the build folder.
public enum ProgramCopies {
    /// Copies `names` (built programs) into `work/bin`, and the data and catalogs beside.
    public static func install(_ names: [String], in work: URL) throws {
        let manager = FileManager.default
        let programs = work.appendingPathComponent("bin")
        try manager.createDirectory(
            at: programs, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        for name in names {
            try manager.copyItem(at: try ProjectPrograms.url(of: name), to: programs.appendingPathComponent(name))
        }
        // The agent finds its data in ../share/screenward beside its folder.
        let data = work.appendingPathComponent("share/screenward")
        try manager.createDirectory(at: data, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let source = try ProjectPrograms.url(of: "screenward-agent").deletingLastPathComponent()
        for file in ["categories.json", "shield.json", "rules.json"] {
            let found = try dataFile(file, above: source)
            try manager.copyItem(at: found, to: data.appendingPathComponent(file))
        }
        // And the translations' catalogs in ../share/locale, as an installation has them.
        let locale = work.appendingPathComponent("share/locale")
        try manager.copyItem(at: try compiledCatalogs(above: source), to: locale)
        let catalogs = (manager.subpaths(atPath: locale.path) ?? []).map { locale.appendingPathComponent($0).path }
        for path in [work.appendingPathComponent("share").path, data.path, locale.path] + catalogs
            + (try manager.contentsOfDirectory(atPath: data.path)).map({ data.appendingPathComponent($0).path })
        {
            let isDirectory =
                (try manager.attributesOfItem(atPath: path))[.type] as? FileAttributeType == .typeDirectory
            try manager.setAttributes([.posixPermissions: isDirectory ? 0o755 : 0o644], ofItemAtPath: path)
        }
    }

    /// The project's `data/NAME` (a file or a folder), found above the built programs.
    public static func projectData(_ name: String) throws -> URL {
        try dataFile(name, above: try ProjectPrograms.url(of: "screenward-agent").deletingLastPathComponent())
    }

    private static func dataFile(_ name: String, above directory: URL) throws -> URL {
        var folder = directory
        while folder.path != "/" {
            let candidate = folder.appendingPathComponent("data").appendingPathComponent(name)
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
            folder.deleteLastPathComponent()
        }
        throw LocalUsersError(description: "no data/\(name) above \(directory.path)")
    }

    /// The build folder's compiled catalogs (`.build/locale`, made by scripts/compile-translations.sh).
    private static func compiledCatalogs(above directory: URL) throws -> URL {
        var folder = directory
        while folder.path != "/", folder.lastPathComponent != ".build" { folder.deleteLastPathComponent() }
        let locale = folder.appendingPathComponent("locale")
        guard folder.lastPathComponent == ".build", FileManager.default.fileExists(atPath: locale.path) else {
            throw LocalUsersError(
                description: "no compiled translations above \(directory.path): run scripts/compile-translations.sh")
        }
        return locale
    }
}
