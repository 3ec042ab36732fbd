/// What the system daemon does with one logind session of a managed user: every way a
/// child logs in is a door, and each is either enforced (an agent in an X11 or sway session)
/// or ended. Plain values over what logind says of the session, so the policy is tested
/// without logind; the daemon carries the decision out.
///
/// The doors (docs/architecture.md, "The doors"):
/// - an X11 session of the child's (a display manager's; one the child starts later from a
///   console is inside a console session, which is ended first): enforced;
/// - a Wayland session: enforced when its compositor is sway (the daemon finds and vets it,
///   `SessionCompositor`), ended otherwise; a Mir session: ended;
/// - a console login (a virtual terminal, `login`, SSH with or without a terminal, a web
///   console; any session of the child's that is not graphical): ended, unless a guardian
///   allowed the child's consoles: then counted as the app Console (`ConsoleUse`), and ended
///   when Console is shielded;
/// - sessions root makes for the child (`su`, `runuser`, cron; logind's class `background`)
///   and the greeter's or a locker's (not the child's): left alone, root's business.
public enum SessionAdmission: Sendable, Equatable, CustomStringConvertible {
    /// An agent enforces it.
    case enforce
    /// A console login a guardian allowed: the daemon counts it as the app Console and ends
    /// it when that app is shielded.
    case countAsConsole
    /// Ended at once, through this door.
    case end(Door)
    /// Not a door of the child's.
    case leave

    /// A way in that cannot be enforced yet.
    public enum Door: String, Sendable, Equatable, CaseIterable {
        /// A Mir session, or a Wayland session whose compositor no agent can serve.
        case wayland
        /// A text login: a virtual terminal, `login`, SSH (with or without a terminal).
        case console
    }

    /// What logind says of a session, as the policy reads it.
    public struct Session: Sendable, Equatable {
        /// `Type`: x11, wayland, mir, tty, web, unspecified…
        public var type: String
        /// `Class`: user, greeter, lock-screen, background… (systemd 256 adds user-early,
        /// user-incomplete, user-light, background-light, manager, manager-early).
        public var sessionClass: String
        /// `Service`: the PAM service that opened it (lightdm, login, sshd, su, cron…).
        public var service: String
        /// `Remote`: opened from another computer (SSH).
        public var isRemote: Bool

        public init(type: String, sessionClass: String, service: String, isRemote: Bool) {
            self.type = type
            self.sessionClass = sessionClass
            self.service = service
            self.isRemote = isRemote
        }
    }

    /// The PAM services through which a person logs in from another computer: a session of
    /// theirs is a console login whatever logind's class (`ssh -T` makes a `background`
    /// one, without a terminal, that still runs the child's commands).
    static let remoteLoginServices: Set<String> = ["sshd", "dropbear", "telnet", "rlogin", "rsh", "cockpit"]

    /// `consoleAllowed`: a guardian allowed the child's console logins.
    public static func decide(_ session: Session, consoleAllowed: Bool = false) -> SessionAdmission {
        let console: SessionAdmission = consoleAllowed ? .countAsConsole : .end(.console)
        if remoteLoginServices.contains(session.service) { return console }
        switch session.sessionClass {
        case "greeter", "lock-screen", "manager", "manager-early": return .leave
        // Root's, unless it came from another computer (whatever the service is called).
        case "background", "background-light": return session.isRemote ? console : .leave
        default: break
        }
        // A person's own session (user, user-early, user-incomplete, user-light, and a class
        // this code does not know: a door until shown otherwise).
        switch session.type {
        // A Wayland session whose compositor no agent can serve is ended by the daemon once
        // it finds the compositor (`SessionCompositor`).
        case "x11", "wayland": return .enforce
        case "mir": return .end(.wayland)
        default: return console
        }
    }

    public var description: String {
        switch self {
        case .enforce: "enforced by an agent"
        case .countAsConsole: "counted as Console"
        case .end(let door): "ended (\(door.rawValue))"
        case .leave: "left alone"
        }
    }
}
