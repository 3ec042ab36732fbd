import ScreenwardBasics

/// Display servers a managed child starts themself: an X server of their own (`Xvfb :5`,
/// `Xorg :7 vt8`, `startx` from a console, a VNC server) or a Wayland compositor. No agent
/// watches what such a server shows (a child could run any app there and look at it through
/// a viewer), so in a managed account one runs only where a guardian allowed it
/// (`screenward allow exe:/usr/bin/Xvfb --user`); any other is closed as soon as the daemon
/// sees it, after a line on its terminal saying why.
///
/// Left alone:
/// - the X server of the child's own X11 session where a display manager runs it as the user
///   (GDM's `gdm-x-session`, SDDM's `sddm-helper-start-x11user`: its parent, installed under
///   /usr). Not told by the display it serves: a child's server in a mount namespace of their
///   own may serve a display of the same name;
/// - nested X servers (Xephyr, Xnest): their window shows on the child's display, where it is
///   an application of its own, counted and shielded like any other;
/// - an Xwayland connected to the compositor of the child's Wayland session: it shows nothing
///   but through that compositor, whose windows the session's agent follows (sway starts it,
///   detached, for the session's X11 apps).
///
/// Known by their program's file name, like `TextBrowsers` (docs/architecture.md, the threat
/// model): a copy under another name is a program the system did not install, shielded by
/// `NotInstalledPrograms` only once it maps a window.
public enum DisplayServers {
    /// X servers with no window on another display: a screen of their own, or none.
    public static let xServers: Set<String> = [
        "Xorg", "Xorg.wrap", "Xvfb", "Xvnc", "Xtigervnc", "Xtightvnc", "Xwayland", "Xdummy", "Xfbdev", "Xvesa",
    ]
    /// Wayland compositors, which run Wayland clients no X11 agent sees. (GNOME Shell and
    /// Mutter are not named: they are X11 window managers too, and the X11 session's own.)
    public static let compositors: Set<String> = [
        "weston", "sway", "labwc", "wayfire", "river", "Hyprland", "cage", "kwin_wayland", "gamescope", "niri",
        "hikari", "cosmic-comp", "miriway", "phoc", "dwl", "westonfb",
    ]
    /// The display managers' helpers that run an X11 session's X server as the user.
    public static let sessionServerStarters: Set<String> = ["gdm-x-session", "sddm-helper-start-x11user"]

    /// What the daemon reads of a candidate: its program, and its parent's executable.
    public struct Candidate: Sendable, Equatable {
        public var program: ProgramFacts
        public var parentExecutable: String
        /// Whether one of its sockets is connected to the compositor of one of the child's
        /// Wayland sessions.
        public var connectedToSessionCompositor: Bool

        public init(program: ProgramFacts, parentExecutable: String, connectedToSessionCompositor: Bool = false) {
            self.program = program
            self.parentExecutable = parentExecutable
            self.connectedToSessionCompositor = connectedToSessionCompositor
        }
    }

    /// Whether `program` is a display server this policy closes unless allowed (so that the
    /// daemon reads its parent).
    public static func isDisplayServer(_ program: ProgramFacts) -> Bool {
        let name = ExecCommand.fileName(program.liveExecutable)
        return xServers.contains(name) || compositors.contains(name)
    }

    /// The candidates to close: display servers no guardian allowed that no display manager
    /// started for the child's session, and that draw in no Wayland session of theirs.
    public static func toClose(_ candidates: [Candidate], allowed: Set<String>) -> [Candidate] {
        candidates.filter { candidate in
            guard isDisplayServer(candidate.program), !allowed.contains(candidate.program.executable) else {
                return false
            }
            if candidate.connectedToSessionCompositor
                && ExecCommand.fileName(candidate.program.liveExecutable) == "Xwayland"
            {
                return false
            }
            let parent = candidate.parentExecutable
            return !(parent.hasPrefix("/usr/") && sessionServerStarters.contains(ExecCommand.fileName(parent)))
        }
    }
}
