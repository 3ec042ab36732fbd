import Foundation

/// What the system daemon knows about one of a managed user's processes, from /proc as
/// root: facts the child cannot choose, unlike anything a window says of itself.
public struct ProgramFacts: Sendable, Hashable, Codable {
    public var pid: Int32
    /// The executable's path (/proc/PID/exe), " (deleted)" included when it was removed.
    public var executable: String
    /// False when the child could have put or changed the executable: it is theirs, they
    /// may write it, or a folder on its path is theirs to change (home, /tmp files of theirs,
    /// /dev/shm, their media, an AppImage mount, a deleted or in-memory file).
    public var installed: Bool
    /// The shown desktop entries whose program this executable is (the same file, or a
    /// file of the same Debian package), the best match first.
    public var applications: [String]
    /// Whether the process has a display's client library loaded (Xlib, XCB or Wayland's):
    /// read for programs the system did not install only, where it tells a program that
    /// may draw from one that does not (which runs unshielded).
    public var usesDisplay: Bool
    /// For a terminal emulator: the executable of the text browser in the foreground of a
    /// terminal it holds (w3m in an xterm), whose application its window is meanwhile.
    public var showing: String?

    public init(
        pid: Int32, executable: String, installed: Bool, applications: [String], usesDisplay: Bool = false,
        showing: String? = nil
    ) {
        self.pid = pid
        self.executable = executable
        self.installed = installed
        self.applications = applications
        self.usesDisplay = usesDisplay
        self.showing = showing
    }

    /// The executable's path as it was run: without the " (deleted)" of one removed (or
    /// upgraded) since.
    public var liveExecutable: String {
        executable.hasSuffix(" (deleted)") ? String(executable.dropLast(" (deleted)".count)) : executable
    }

    /// The identity of a program the system did not install: its executable, by path.
    public var notInstalledIdentity: AppIdentity {
        AppIdentity(key: .executable(executable), displayName: ExecCommand.fileName(executable))
    }
}

/// A window's identity in a managed session: what the window claims may only narrow what
/// its process is. A window claiming an application whose program its process does not run
/// is that process's application instead; a program the system did not install is itself,
/// whatever it claims.
public enum ProgramNarrowing {
    public static func identity(claimed: AppIdentity, program: ProgramFacts?, catalog: ApplicationCatalog)
        -> AppIdentity
    {
        guard let program else { return claimed }
        // A terminal showing a text browser is that browser's while it does.
        if program.installed, let shown = program.showing {
            return AppIdentity(key: .executable(shown), displayName: ExecCommand.fileName(shown))
        }
        guard program.installed else { return program.notInstalledIdentity }
        if case .desktopEntry(let id) = claimed.key, program.applications.contains(id) { return claimed }
        if let own = identity(of: program, catalog: catalog) { return own }
        // An installed program no entry is for: it cannot be any entry's application. A
        // class of its own it may keep (it names no installed app; see docs/architecture.md).
        if case .desktopEntry = claimed.key {
            return AppIdentity(
                key: .executable(program.executable), displayName: ExecCommand.fileName(program.executable))
        }
        return claimed
    }

    /// What a process is without any window to go by: the application its program is
    /// installed for, or a program the system did not install that may draw. Nil for the
    /// others (an installed program no entry is for, a program that cannot draw): those
    /// are known by their windows only.
    public static func identity(of program: ProgramFacts, catalog: ApplicationCatalog) -> AppIdentity? {
        guard program.installed else { return program.usesDisplay ? program.notInstalledIdentity : nil }
        guard let first = program.applications.first, let entry = catalog.entry(id: first) else { return nil }
        return AppIdentity(
            key: .desktopEntry(entry.id), displayName: entry.name, iconName: entry.iconName,
            categories: entry.categories)
    }
}
