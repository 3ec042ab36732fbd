import Foundation

/// Decides which application a window belongs to.
///
/// The order follows GNOME Shell's window tracker and Plasma's task manager: what the
/// toolkit says the app is, then the WM_CLASS hints desktop entries were written
/// for, then what the owning process reveals, and only then the bare WM_CLASS. The
/// earlier rules are cheaper and more precise; each later one guesses a little more.
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
        if let entry = entryFromWindow(facts, instance: instance, wmClass: wmClass) {
            return Self.identity(of: entry)
        }

        var executable: String?
        if let pid = facts.pid {
            // /proc is read only when the window's own hints were not enough.
            executable = processes.executablePath(pid: pid)
            if let entry = entryFromProcess(pid: pid, executable: executable) {
                return Self.identity(of: entry)
            }
        }

        if let wmClass {
            return AppIdentity(key: .windowClass(wmClass), displayName: wmClass)
        }
        if let executable {
            return AppIdentity(key: .executable(executable), displayName: ExecCommand.fileName(executable))
        }
        return AppIdentity(key: .windowClass("unidentified"), displayName: "Unidentified window")
    }

    private func entryFromWindow(_ facts: WindowFacts, instance: String?, wmClass: String?) -> DesktopEntry? {
        if let appID = nonEmpty(facts.gtkApplicationID), let entry = catalog.entry(id: appID + ".desktop") {
            return entry
        }
        if let file = nonEmpty(facts.kdeDesktopFile) {
            // Plasma documents a name without `.desktop`, but some apps set a file name or path.
            let name = ExecCommand.fileName(file)
            if let entry = catalog.entry(id: name.hasSuffix(".desktop") ? name : name + ".desktop") {
                return entry
            }
        }
        let names = [instance, wmClass].compactMap { $0 }
        for name in names {
            if let entry = catalog.entry(startupWMClass: name) { return entry }
        }
        for name in names {
            // `Google-chrome` → google-chrome.desktop, `Foo Bar` → foo-bar.desktop.
            let normalized = name.lowercased().replacingOccurrences(of: " ", with: "-")
            if let entry = catalog.entry(id: name + ".desktop") ?? catalog.entry(id: normalized + ".desktop") {
                return entry
            }
        }
        return nil
    }

    private func entryFromProcess(pid: Int32, executable: String?) -> DesktopEntry? {
        if let appID = processes.flatpakApplicationID(pid: pid), let entry = catalog.entry(id: appID + ".desktop") {
            return entry
        }
        let environment = processes.environment(pid: pid) ?? [:]
        if let snap = nonEmpty(environment["SNAP_INSTANCE_NAME"]) ?? nonEmpty(environment["SNAP_NAME"]),
           executable.map({ $0.hasPrefix("/snap/") }) ?? true,  // Children a classic snap starts inherit its variables.
           let entry = snapEntry(instanceName: snap) {
            return entry
        }
        if let appImage = nonEmpty(environment["APPIMAGE"]),
           let entry = catalog.entries(execProgram: appImage).first {
            return entry
        }
        if let executable {
            // Several entries running one program (`libreoffice --writer`, `--calc`) say
            // nothing about which one this window is; the window class will say more.
            let candidates = catalog.entries(executablePath: executable)
            if candidates.count == 1 { return candidates[0] }
        }
        return nil
    }

    /// snapd names desktop files `<snap>_<app>.desktop`, with a parallel install's
    /// `_key` written `+key`. The app named like the snap is its main one.
    private func snapEntry(instanceName: String) -> DesktopEntry? {
        let prefix = instanceName.replacingOccurrences(of: "_", with: "+") + "_"
        let snapName = instanceName.split(separator: "_").first.map(String.init) ?? instanceName
        return catalog.entry(id: prefix + snapName + ".desktop") ?? catalog.entries(idPrefix: prefix).first
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
