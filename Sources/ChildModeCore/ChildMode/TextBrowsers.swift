import ScreenwardBasics

/// Text browsers (w3m, lynx, links, elinks, browsh, …) show websites in a terminal, where no
/// extension reports their pages: in a managed account they run only where a guardian allowed
/// them (`screenward allow exe:/usr/bin/w3m --user`) or limits them (a limit naming
/// `exe:/usr/bin/w3m`). Any other is closed as soon as the daemon sees it, after a line on its
/// terminal saying why. One that runs is an application of its own while it is in the
/// foreground of a terminal (`ProgramFacts.showing`): the terminal's window is counted, and
/// shielded, as that browser.
///
/// Known by their program's file name, installed or copied: a copy under another name, or a
/// browser the child builds, is not known (docs/architecture.md, the threat model).
public enum TextBrowsers {
    /// The file names of the text browsers Debian ships.
    public static let names: Set<String> = [
        "w3m", "lynx", "links", "links2", "elinks", "browsh", "edbrowse", "netrik", "retawq",
    ]

    /// Whether `program` runs a text browser.
    public static func isTextBrowser(_ program: ProgramFacts) -> Bool {
        names.contains(ExecCommand.fileName(program.liveExecutable))
    }

    /// The processes of `programs` to close: text browsers whose executable no guardian allowed.
    public static func toClose(_ programs: [ProgramFacts], allowed: Set<String>) -> [ProgramFacts] {
        programs.filter { isTextBrowser($0) && !allowed.contains($0.executable) }
    }
}
