import Foundation

/// Decides which application a window belongs to.
///
/// The order follows GNOME Shell's window tracker and Plasma's task manager: what the
/// toolkit says the app is, then the WM_CLASS hints desktop entries were written
/// for, then what the owning process reveals, then ids that merely stand for the
/// window's name (`org.xfce.mousepad.desktop` for `mousepad`), then the names Java
/// gives its windows, and only then the bare WM_CLASS. The earlier rules are
/// cheaper and more precise; each later one guesses a little more. When a rule
/// finds several entries, `MenuChoice` picks the one a menu shows as the app.
public struct AppResolver: Sendable {
    public let catalog: ApplicationCatalog
    public let processes: any ProcessInspector

    public init(catalog: ApplicationCatalog, processes: any ProcessInspector) {
        self.catalog = catalog
        self.processes = processes
    }

    public func resolve(_ facts: WindowFacts) -> AppIdentity {
        let instance = nonEmpty(facts.wmInstance)
        let wmClass = nonEmpty(facts.wmClass)
        // A Wayland app_id is matched as WM_CLASS is (GNOME Shell does the same): desktop
        // entries' StartupWMClass names it for the apps whose app_id is not their entry's name.
        let names = [instance, wmClass, nonEmpty(facts.appID)].compactMap { $0 }
        // /proc/PID/cmdline is read at most once, and only if a choice needs it.
        var commandLine: [String]??
        func arguments() -> [String]? {
            if commandLine == nil { commandLine = facts.pid.map { processes.commandLine(pid: $0) } ?? nil }
            return commandLine??.dropFirst().map { $0 }
        }
        let choice = MenuChoice(windowNames: names, processArguments: arguments)

        if let entry = entryFromWindow(facts, names: names, choice: choice) {
            return Self.identity(of: entry)
        }
        var executable: String?
        if let pid = facts.pid {
            // /proc is read only when the window's own hints were not enough.
            executable = processes.executablePath(pid: pid)
            if let entry = entryFromProcess(pid: pid, executable: executable, choice: choice) {
                return Self.identity(of: entry)
            }
        }
        if let entry = entryStandingFor(names, choice: choice)
            ?? javaEntry(instance: instance, wmClass: wmClass, executable: executable, arguments: arguments)
        {
            return Self.identity(of: entry)
        }

        if let name = wmClass ?? nonEmpty(facts.appID) {
            return AppIdentity(key: .windowClass(name), displayName: name)
        }
        if let executable {
            return AppIdentity(key: .executable(executable), displayName: ExecCommand.fileName(executable))
        }
        return AppIdentity(key: .windowClass("unidentified"), displayName: "Unidentified window")
    }

    private func entryFromWindow(_ facts: WindowFacts, names: [String], choice: MenuChoice) -> DesktopEntry? {
        for appID in [facts.gtkApplicationID, facts.appID].compactMap(nonEmpty) {
            if let entry = catalog.entry(id: appID + ".desktop") { return entry }
        }
        if let file = nonEmpty(facts.kdeDesktopFile) {
            // Plasma documents a name without `.desktop`, but some apps set a file name or path.
            let name = ExecCommand.fileName(file)
            if let entry = catalog.entry(id: name.hasSuffix(".desktop") ? name : name + ".desktop") {
                return entry
            }
        }
        return entryNamed(names, choice: choice)
    }

    /// StartupWMClass against each name, then `<name>.desktop` for each name:
    /// instance before class, as GNOME Shell does (Chromium's web apps differ
    /// only in the instance). StartupWMClass is first matched exactly, as GNOME
    /// Shell does, then ignoring case, as Plasma does: UXTerm's window is
    /// `xterm`/`UXTerm`, and `xterm` must not find XTerm's `StartupWMClass=XTerm`.
    private func entryNamed(_ names: [String], choice: MenuChoice) -> DesktopEntry? {
        for name in names {
            let exact = catalog.entries(startupWMClass: name).filter { $0.startupWMClass == name }
            if let entry = choice.best(of: exact) { return entry }
        }
        for name in names {
            if let entry = choice.best(of: catalog.entries(startupWMClass: name)) { return entry }
        }
        for name in names {
            // `Google-chrome` → google-chrome.desktop, `Foo Bar` → foo-bar.desktop.
            if let entry = catalog.entry(id: name + ".desktop") ?? catalog.entry(id: Self.idForm(name) + ".desktop") {
                return entry
            }
        }
        return nil
    }

    private func entryFromProcess(pid: Int32, executable: String?, choice: MenuChoice) -> DesktopEntry? {
        if let appID = processes.flatpakApplicationID(pid: pid), let entry = catalog.entry(id: appID + ".desktop") {
            return entry
        }
        let environment = processes.environment(pid: pid) ?? [:]
        if let snap = nonEmpty(environment["SNAP_INSTANCE_NAME"]) ?? nonEmpty(environment["SNAP_NAME"]),
            // Children a classic snap starts inherit its variables.
            executable.map({ $0.hasPrefix("/snap/") }) ?? true,
            let entry = snapEntry(instanceName: snap)
        {
            return entry
        }
        if let appImage = nonEmpty(environment["APPIMAGE"]),
            let entry = catalog.entries(execProgram: appImage).first
        {
            return entry
        }
        if let executable {
            // Mousepad's editor and its settings both run /usr/bin/mousepad: the
            // menu's main entry is the editor. Entries that differ only by an
            // argument this process did not get say nothing, and give no answer.
            return choice.bestMain(of: catalog.entries(executablePath: executable))
        }
        return nil
    }

    /// Ids that stand for a name without being `<name>.desktop`: reverse-DNS
    /// (`org.xfce.mousepad.desktop`), vendor-prefixed (`debian-xterm.desktop`), or in
    /// a subdirectory. GNOME Shell finds vendor-prefixed ids; Debian ships many
    /// applications under reverse-DNS ids their windows do not announce.
    private func entryStandingFor(_ names: [String], choice: MenuChoice) -> DesktopEntry? {
        for name in names {
            if let entry = choice.best(of: catalog.entries(standingFor: Self.idForm(name))) { return entry }
        }
        return nil
    }

    /// Java's AWT names a window after the program's main class, dots turned into
    /// dashes (`org-gjt-sp-jedit-jEdit`; JDK 8 and older put `sun-awt-X11-XFramePeer`
    /// in the instance), and the process is the shared `java`. The class's simple
    /// name, or the `-jar` archive's, is what desktop entries are named after.
    private func javaEntry(
        instance: String?, wmClass: String?, executable: String?, arguments: @escaping () -> [String]?
    ) -> DesktopEntry? {
        let isJava =
            instance?.hasPrefix("sun-awt-X11-") == true
            || executable.map({ ExecCommand.fileName($0) == "java" }) == true
        guard isJava else { return nil }
        var names: [String] = []
        if let wmClass, let simple = wmClass.split(separator: "-").last, simple.count < wmClass.count {
            names.append(String(simple))
        }
        if let executable, ExecCommand.fileName(executable) == "java", let arguments = arguments() {
            names += JavaCommand.applicationNames(arguments)
        }
        var seen: Set<String> = []
        names = names.filter { seen.insert($0.lowercased()).inserted }
        let choice = MenuChoice(windowNames: names, processArguments: arguments)
        return entryNamed(names, choice: choice) ?? entryStandingFor(names, choice: choice)
    }

    /// snapd names desktop files `<snap>_<app>.desktop`, with a parallel install's
    /// `_key` written `+key`. The app named like the snap is its main one.
    private func snapEntry(instanceName: String) -> DesktopEntry? {
        let prefix = instanceName.replacingOccurrences(of: "_", with: "+") + "_"
        let snapName = instanceName.split(separator: "_").first.map(String.init) ?? instanceName
        return catalog.entry(id: prefix + snapName + ".desktop") ?? catalog.entries(idPrefix: prefix).first
    }

    /// A name as desktop ids write it: lowercased, spaces as dashes (`Fedora Eclipse`).
    private static func idForm(_ name: String) -> String {
        name.lowercased().replacingOccurrences(of: " ", with: "-")
    }

    private static func identity(of entry: DesktopEntry) -> AppIdentity {
        AppIdentity(
            key: .desktopEntry(entry.id), displayName: entry.name,
            iconName: entry.iconName, categories: entry.categories)
    }

    private func nonEmpty(_ value: String?) -> String? {
        value.flatMap { $0.isEmpty ? nil : $0 }
    }
}

/// The parts of a `java` command line that name the application.
enum JavaCommand {
    /// Options whose value is the next argument.
    private static let optionsWithValue: Set<String> = [
        "-cp", "-classpath", "--class-path", "-p", "--module-path", "--upgrade-module-path", "--add-modules",
        "--add-opens", "--add-exports", "--add-reads", "--enable-native-access",
    ]

    /// The `-jar` archive's name without `.jar`, and the main class's simple name
    /// (`org.gjt.sp.jedit.jEdit` → `jEdit`, `-m app/org.example.App` → `App`).
    static func applicationNames(_ arguments: [String]) -> [String] {
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            if argument == "-jar", let archive = remaining.first {
                let name = ExecCommand.fileName(archive)
                return [name.hasSuffix(".jar") ? String(name.dropLast(4)) : name]
            }
            if argument == "-m" || argument == "--module", let module = remaining.first {
                return module.split(separator: "/").last.map { [simpleName(String($0))] } ?? []
            }
            if optionsWithValue.contains(argument) {
                remaining = remaining.dropFirst()
            } else if !argument.hasPrefix("-") {
                return [simpleName(argument)]  // The main class; what follows is the program's own.
            }
        }
        return []
    }

    private static func simpleName(_ className: String) -> String {
        className.split(separator: ".").last.map(String.init) ?? className
    }
}
