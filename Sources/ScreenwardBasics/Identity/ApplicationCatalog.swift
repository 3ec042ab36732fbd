import Foundation

/// The installed applications, as the desktop sees them: one desktop entry per id,
/// after XDG precedence and masking, with the indexes identity resolution needs.
///
/// The indexes are built once, at init, because building them touches the file
/// system (PATH search, symlinks) and resolution runs on every focus change.
public struct ApplicationCatalog: Sendable {
    /// All entries, sorted by id.
    public let entries: [DesktopEntry]
    private let byID: [String: DesktopEntry]
    /// Lowercased StartupWMClass → ids, sorted.
    private let byStartupWMClass: [String: [String]]
    /// Canonical path of Exec's program → ids, sorted.
    private let byProgram: [String: [String]]
    /// Canonical path of Exec's program or of TryExec → ids, sorted.
    private let byExecutable: [String: [String]]
    /// Lowercased names an id stands for (see `nameKeys`) → ids, sorted.
    private let byName: [String: [String]]

    /// - Parameter executableSearchPath: where bare program names in `Exec=` and
    ///   `TryExec=` are looked up, like `$PATH`.
    public init(entries: [DesktopEntry], executableSearchPath: [String] = []) {
        var byID: [String: DesktopEntry] = [:]
        for entry in entries where byID[entry.id] == nil { byID[entry.id] = entry }
        self.entries = byID.values.sorted { $0.id < $1.id }
        self.byID = byID

        var byStartupWMClass: [String: [String]] = [:]
        var byProgram: [String: [String]] = [:]
        var byExecutable: [String: [String]] = [:]
        var byName: [String: [String]] = [:]
        for entry in self.entries {
            for key in Self.nameKeys(of: entry) { byName[key, default: []].append(entry.id) }
            if let wmClass = entry.startupWMClass {
                byStartupWMClass[wmClass.lowercased(), default: []].append(entry.id)
            }
            var paths: Set<String> = []
            if let exec = entry.exec, let program = ExecCommand.program(of: exec),
                let path = ExecCommand.locate(program, searchPath: executableSearchPath)
            {
                byProgram[path, default: []].append(entry.id)
                if !ExecCommand.isSharedRuntime(program) && !ExecCommand.isSharedRuntime(path) {
                    paths.insert(path)
                }
            }
            if let tryExec = entry.tryExec, !ExecCommand.isSharedRuntime(tryExec),
                let path = ExecCommand.locate(tryExec, searchPath: executableSearchPath)
            {
                paths.insert(path)
            }
            for path in paths { byExecutable[path, default: []].append(entry.id) }
        }
        self.byStartupWMClass = byStartupWMClass
        self.byProgram = byProgram
        self.byExecutable = byExecutable
        self.byName = byName
    }

    public func entry(id: String) -> DesktopEntry? {
        byID[id]
    }

    /// The entries whose StartupWMClass matches, ignoring case, sorted by id.
    public func entries(startupWMClass wmClass: String) -> [DesktopEntry] {
        (byStartupWMClass[wmClass.lowercased()] ?? []).compactMap { byID[$0] }
    }

    /// The entry whose StartupWMClass matches, ignoring case. When several do, the
    /// one a menu would show as the application (see `MenuChoice`): shown, matching
    /// exactly, then the shortest and smallest id, so the answer is stable.
    public func entry(startupWMClass wmClass: String) -> DesktopEntry? {
        MenuChoice(windowNames: [wmClass]).best(of: entries(startupWMClass: wmClass))
    }

    /// Entries whose id stands for `name`, ignoring case, beyond `<name>.desktop`
    /// itself: with a vendor's reverse-DNS prefix (`org.xfce.mousepad.desktop` for
    /// `mousepad`), a vendor prefix GNOME Shell knows (`debian-xterm.desktop`), or
    /// from a subdirectory (`wine/Programs/Notepad.desktop`). Sorted by id.
    public func entries(standingFor name: String) -> [DesktopEntry] {
        (byName[name.lowercased()] ?? []).compactMap { byID[$0] }
    }

    /// Entries whose `Exec=` program or `TryExec=` is this executable, after
    /// resolving symlinks on both sides.
    ///
    /// Shells, interpreters and runtimes (`python3`, `java`, `wine`, …) are not
    /// indexed: one `Exec=python3 tool.py` entry must not claim every Python window.
    /// The executables entries are for (their `Exec` or `TryExec` programs, shared
    /// runtimes left out), symbolic links resolved.
    public var programPaths: [String] { Array(byExecutable.keys) }

    public func entries(executablePath path: String) -> [DesktopEntry] {
        (byExecutable[Self.canonical(path)] ?? []).compactMap { byID[$0] }
    }

    /// Entries whose `Exec=` program is this file, interpreters included: for
    /// launchers such as AppImages, where the path itself is what identifies the app.
    public func entries(execProgram path: String) -> [DesktopEntry] {
        (byProgram[Self.canonical(path)] ?? []).compactMap { byID[$0] }
    }

    /// Entries whose id starts with `prefix`, sorted by id.
    public func entries(idPrefix prefix: String) -> [DesktopEntry] {
        entries.filter { $0.id.hasPrefix(prefix) }
    }

    private static func canonical(_ path: String) -> String {
        URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    }

    /// Prefixes distributions and old desktops put before an application's own name;
    /// GNOME Shell tries the same ones.
    static let vendorPrefixes = ["gnome-", "fedora-", "mozilla-", "debian-", "kde4-", "kde-"]

    /// The lowercased names an entry's id stands for: the id without `.desktop`,
    /// the last part of a reverse-DNS id, the id without a known vendor prefix, and
    /// the file's own name when it lies in a subdirectory.
    static func nameKeys(of entry: DesktopEntry) -> Set<String> {
        let stem = stem(of: entry.id).lowercased()
        var keys: Set<String> = [stem]
        if let dot = stem.lastIndex(of: ".") {
            let last = stem[stem.index(after: dot)...]
            // `python3.11` is not an application called "11".
            if !last.isEmpty, !last.allSatisfy(\.isNumber) { keys.insert(String(last)) }
        }
        for prefix in vendorPrefixes where stem.hasPrefix(prefix) && stem.count > prefix.count {
            keys.insert(String(stem.dropFirst(prefix.count)))
        }
        let fileName = entry.path.lastPathComponent
        if entry.id.hasSuffix("-" + fileName), fileName.hasSuffix(".desktop") {
            keys.insert(Self.stem(of: fileName).lowercased())
        }
        return keys
    }

    /// An id or file name without its `.desktop`.
    static func stem(of id: String) -> String {
        id.hasSuffix(".desktop") ? String(id.dropLast(".desktop".count)) : id
    }
}

// MARK: - Loading

extension ApplicationCatalog {
    /// Loads every desktop entry under `<dir>/` for each directory, which must be the
    /// `applications` directories in XDG precedence order, most important first.
    ///
    /// Nothing here aborts: an unreadable directory or a broken file becomes a line in
    /// `problems`, and the rest of the catalog is still built.
    public static func load(
        dataDirectories: [String], locale: String,
        executableSearchPath: [String] = defaultSearchPath()
    ) -> (catalog: ApplicationCatalog, problems: [String]) {
        var problems: [String] = []
        var claimed: Set<String> = []
        var entries: [DesktopEntry] = []
        for directory in dataDirectories {
            for (id, file) in desktopFiles(in: directory, problems: &problems) where !claimed.contains(id) {
                do {
                    // A nil entry (Hidden, or not an application) still claims its id:
                    // that is how a user deletes a system entry.
                    claimed.insert(id)
                    if let entry = try DesktopEntry.load(file: file, id: id, locale: locale) {
                        entries.append(entry)
                    }
                } catch {
                    // A broken override must not make the application unknown: the
                    // lower copy has the same id, so tokens stay the same.
                    claimed.remove(id)
                    problems.append(String(describing: error))
                }
            }
        }
        return (ApplicationCatalog(entries: entries, executableSearchPath: executableSearchPath), problems)
    }

    /// Loads the catalog the user's session shows: `$XDG_DATA_HOME` (default
    /// `~/.local/share`) then `$XDG_DATA_DIRS` (default `/usr/local/share:/usr/share`),
    /// each with `/applications`, in the locale of LC_ALL, LC_MESSAGES or LANG.
    public static func loadFromEnvironment(_ env: [String: String]) -> (ApplicationCatalog, [String]) {
        let result = load(
            dataDirectories: applicationDirectories(env),
            locale: DesktopEntry.locale(fromEnvironment: env),
            executableSearchPath: searchPath(env["PATH"]))
        return (result.catalog, result.problems)
    }

    /// The `applications` directories, most important first.
    public static func applicationDirectories(_ env: [String: String]) -> [String] {
        var dataDirectories: [String] = []
        if let home = env["XDG_DATA_HOME"], !home.isEmpty {
            dataDirectories.append(home)
        } else if let home = env["HOME"], !home.isEmpty {
            dataDirectories.append(home + "/.local/share")
        }
        dataDirectories += SharedDataDirectories.from(env)

        var seen: Set<String> = []
        // The base directory spec says relative paths are invalid and must be ignored.
        return
            dataDirectories
            .filter { $0.hasPrefix("/") }
            .map { URL(fileURLWithPath: $0).standardizedFileURL.path + "/applications" }
            .filter { seen.insert($0).inserted }
    }

    public static func defaultSearchPath() -> [String] {
        searchPath(ProcessInfo.processInfo.environment["PATH"])
    }

    private static func searchPath(_ path: String?) -> [String] {
        (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
    }

    /// The `*.desktop` files under `directory` and their ids, sorted so that when two
    /// files map to one id (`kde4/foo.desktop` and `kde4-foo.desktop`) the choice is stable.
    private static func desktopFiles(in directory: String, problems: inout [String]) -> [(id: String, file: URL)] {
        let root = URL(fileURLWithPath: directory, isDirectory: true)
        guard (try? root.resourceValues(forKeys: [.isDirectoryKey]))?.isDirectory == true else {
            return []  // Most listed data directories have no applications; that is normal.
        }
        var enumerationProblems: [String] = []
        guard
            let enumerator = FileManager.default.enumerator(
                at: root, includingPropertiesForKeys: [.isRegularFileKey],
                errorHandler: { url, error in
                    enumerationProblems.append("\(url.path): \(error.localizedDescription)")
                    return true
                })
        else {
            problems.append("\(directory): cannot be listed")
            return []
        }

        var files: [(id: String, relative: String, file: URL)] = []
        let rootPath = root.standardizedFileURL.path
        while let file = enumerator.nextObject() as? URL {
            guard file.pathExtension == "desktop" else { continue }
            let path = file.standardizedFileURL.path
            guard path.hasPrefix(rootPath + "/") else { continue }
            let relative = String(path.dropFirst(rootPath.count + 1))
            files.append((relative.replacingOccurrences(of: "/", with: "-"), relative, file))
        }
        problems += enumerationProblems

        var seen: Set<String> = []
        return
            files
            .sorted { ($0.id, $0.relative) < ($1.id, $1.relative) }
            .filter { seen.insert($0.id).inserted }
            .map { ($0.id, $0.file) }
    }
}
