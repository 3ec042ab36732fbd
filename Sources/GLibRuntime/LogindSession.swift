/// A logind session's id ("1", "c2", …): what `loginctl` shows and
/// `LockSession`/`TerminateSession` take.
public struct SessionID: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String

    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { rawValue = value }

    public var description: String { rawValue }

    public static func < (lhs: SessionID, rhs: SessionID) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// One session as systemd-logind describes it (org.freedesktop.login1.Session).
public struct LogindSession: Sendable, Equatable, Identifiable {
    /// The `Type` property: what kind of display server, if any, the session runs.
    public enum SessionType: Sendable, Hashable, CustomStringConvertible {
        case x11, wayland, mir, tty, web, unspecified
        /// A type this code does not know (logind may add some).
        case other(String)

        public init(_ text: String) {
            switch text {
            case "x11": self = .x11
            case "wayland": self = .wayland
            case "mir": self = .mir
            case "tty": self = .tty
            case "web": self = .web
            case "unspecified": self = .unspecified
            default: self = .other(text)
            }
        }

        public var description: String {
            switch self {
            case .x11: "x11"
            case .wayland: "wayland"
            case .mir: "mir"
            case .tty: "tty"
            case .web: "web"
            case .unspecified: "unspecified"
            case .other(let text): text
            }
        }
    }

    /// The `State` property.
    public enum State: Sendable, Hashable, CustomStringConvertible {
        /// Logged in, in the foreground of its seat.
        case active
        /// Logged in, not in the foreground.
        case online
        /// Logged out, with processes left (or being stopped).
        case closing
        case other(String)

        public init(_ text: String) {
            switch text {
            case "active": self = .active
            case "online": self = .online
            case "closing": self = .closing
            default: self = .other(text)
            }
        }

        public var description: String {
            switch self {
            case .active: "active"
            case .online: "online"
            case .closing: "closing"
            case .other(let text): text
            }
        }
    }

    public var id: SessionID
    /// The session's object path on the bus (derived from the id by logind).
    public var objectPath: String
    /// `User`: the uid of the session's user.
    public var uid: UInt32
    /// `Name`: the user's name.
    public var userName: String
    public var type: SessionType
    /// `Display`: the X11 display (":0") for X11 sessions, else usually empty.
    public var display: String
    /// `Active`: in the foreground of its seat.
    public var isActive: Bool
    public var state: State
    public var isRemote: Bool
    /// `Leader`: the pid of the session's leader process.
    public var leaderPID: UInt32
    /// `Class`: `user`, `greeter`, `lock-screen`, `background`…
    public var sessionClass: String
    /// `Seat`'s id ("seat0"); nil for a session without a seat (ssh, for example).
    public var seat: String?
    /// `LockedHint`: the session's screen locker says it is locked.
    public var isLocked: Bool
    /// `Service`: the PAM service that opened it (`lightdm`, `login`, `sshd`, `su`, `cron`…).
    public var service: String
    /// `TTY`: the terminal of a text login (`tty2`, `pts/3`), else empty.
    public var tty: String

    public init(
        id: SessionID, objectPath: String, uid: UInt32, userName: String, type: SessionType, display: String,
        isActive: Bool, state: State, isRemote: Bool, leaderPID: UInt32, sessionClass: String, seat: String?,
        isLocked: Bool, service: String = "", tty: String = ""
    ) {
        self.id = id
        self.objectPath = objectPath
        self.uid = uid
        self.userName = userName
        self.type = type
        self.display = display
        self.isActive = isActive
        self.state = state
        self.isRemote = isRemote
        self.leaderPID = leaderPID
        self.sessionClass = sessionClass
        self.seat = seat
        self.isLocked = isLocked
        self.service = service
        self.tty = tty
    }
}

/// Why logind's sessions cannot be followed, or a session not be locked or ended.
public enum LogindSessionsError: Error, CustomStringConvertible, Equatable {
    /// No system bus at `address` (or it refused us).
    case noSystemBus(address: String, reason: String)
    /// The system bus is there but nobody owns org.freedesktop.login1.
    case noLogind(reason: String)
    /// The bus policy or polkit refused `method` (the caller is not root, for example).
    case accessDenied(method: String, session: SessionID?, reason: String)
    /// logind knows no such session (it ended, or never was).
    case noSuchSession(SessionID, reason: String)
    /// logind answered `method` with a value of the wrong type.
    case malformedReply(method: String, type: String)
    /// Any other failure of `method` (a timeout, a lost connection…).
    case callFailed(method: String, session: SessionID?, reason: String)
    /// `method` was called before `start` or after `stop`.
    case notStarted(method: String)

    public var description: String {
        switch self {
        case .noSystemBus(let address, let reason):
            "cannot connect to the system bus at \(address): \(reason)"
        case .noLogind(let reason):
            "nobody owns org.freedesktop.login1 on the system bus (\(reason))"
        case .accessDenied(let method, let session, let reason):
            "logind refused \(method)\(session.map { " of session \($0)" } ?? ""): \(reason)"
        case .noSuchSession(let id, let reason):
            "logind knows no session \(id): \(reason)"
        case .malformedReply(let method, let type):
            "logind answered \(method) with a value of type \(type), not the expected one"
        case .callFailed(let method, let session, let reason):
            "\(method)\(session.map { " of session \($0)" } ?? "") failed: \(reason)"
        case .notStarted(let method):
            "cannot call \(method): the logind session follower is not started"
        }
    }
}
