import Foundation

/// Which shown applications (entries without NoDisplay) an executable runs, as the system installed them: the entries
/// whose program is that file, then those whose program comes in the same Debian package
/// (Chromium's entry runs the script /usr/bin/chromium; its windows' process is
/// /usr/lib/chromium/chromium). Entries of shared runtimes (an interpreter, `env`) claim
/// nothing: a program they run is not theirs.
public struct InstalledPrograms: Sendable {
    public let catalog: ApplicationCatalog
    /// Each file of a package that ships some entry's program → those programs.
    private let packageSiblings: [String: [String]]

    /// Reads dpkg's file lists under `dpkgInfo` (absent on a system without dpkg: then
    /// only the entries' own programs count).
    public init(catalog: ApplicationCatalog, dpkgInfo: String = "/var/lib/dpkg/info") {
        self.catalog = catalog
        let programs = Set(catalog.programPaths)
        var siblings: [String: [String]] = [:]
        let lists = ((try? FileManager.default.contentsOfDirectory(atPath: dpkgInfo)) ?? []).filter {
            $0.hasSuffix(".list")
        }
        for list in lists {
            guard let text = try? String(contentsOfFile: dpkgInfo + "/" + list, encoding: .utf8) else { continue }
            let files = text.split(separator: "\n").map(String.init)
            // A package's entries' programs, by their paths as the catalog resolved them.
            var shipped: [String] = []
            for file in files
            where programs.contains(file) || (Self.isProgramFolder(file) && programs.contains(Self.canonical(file))) {
                let program = programs.contains(file) ? file : Self.canonical(file)
                if !shipped.contains(program) { shipped.append(program) }
            }
            guard !shipped.isEmpty else { continue }
            for file in files { siblings[file, default: []].append(contentsOf: shipped) }
        }
        packageSiblings = siblings
    }

    /// The ids of the shown entries `executable` runs, those whose program it is first.
    public func applications(forExecutable executable: String) -> [String] {
        var ids = catalog.entries(executablePath: executable).filter { !$0.noDisplay }.map(\.id)
        for program in packageSiblings[executable] ?? [] {
            for entry in catalog.entries(executablePath: program) where !entry.noDisplay && !ids.contains(entry.id) {
                ids.append(entry.id)
            }
        }
        return ids
    }

    private static func isProgramFolder(_ path: String) -> Bool {
        path.contains("/bin/") || path.contains("/games/") || path.contains("/sbin/")
    }

    private static func canonical(_ path: String) -> String {
        URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    }
}
