import AppExtensions
import Foundation
import ScreenTimePolicy
import ScreenwardBasics
import ScreenwardIPC
import UsageLedger

/// The system daemon's answers to its own requests (`ChildMethods`): who the caller
/// is, and the guardians' management of children. Every request is authorized by the
/// caller's kernel-reported credentials and the account databases, never by what the
/// request says; refused attempts by a managed user are recorded for their guardians.
///
/// Single-threaded: the daemon runs it on its one state loop.
public final class ChildModeService {
    public let state: DaemonState
    let accounts: any AccountDirectory
    let policy: GuardianPolicy
    let homes: ChildHomes
    let now: @Sendable () -> Date
    /// A managed user's (by uid) session speaks another language now (the daemon tells their agents).
    public var onSessionLanguageChanged: ((UInt32, String) -> Void)?
    /// When each managed user's session last changed its language.
    var languageChanges: [UInt32: Date] = [:]
    /// Called after the set of managed users changed (the daemon opens or closes their owners).
    public var onManagedUsersChanged: (() -> Void)?
    /// A guardian allowed or stopped allowing a managed user's (by uid) console logins.
    public var onConsoleAccessChanged: ((UInt32) -> Void)?
    /// A managed user's (by name) events on the household's other computers (docs/household.md).
    public var eventsElsewhere: ((String) -> [ChildEvent])?
    /// Why who is managed cannot be changed now (a household's database out of reach: the
    /// computers would disagree), if it cannot.
    public var householdRefusal: (() -> ServiceError?)?
    /// A guardian here made a user (by name) managed or not, by their name.
    public var onGuardianChangedManaged: ((String, Bool, String) -> Void)?
    /// Each managed user's state owner (the daemon's), for their usage.
    public var owner: (UInt32) -> ManagedUserOwner? = { _ in nil }
    /// The system's calendar: a managed user's day is the computer's, not their `TZ`'s.
    public var calendar: () -> Calendar = { .current }
    /// The extensions listing of a managed user (the daemon's extensions know what is
    /// installed and running; their runs are in the user's ledger).
    public var extensionsListing: (ManagedUserOwner, _ runs: Int) throws -> ExtensionsListing = { _, _ in
        throw ServiceError(.unsupported, Phrase("this daemon starts no extensions", context: "daemon"))
    }

    public init(
        state: DaemonState, accounts: any AccountDirectory, homes: ChildHomes,
        policy: GuardianPolicy = GuardianPolicy(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.state = state
        self.policy = policy
        self.accounts = accounts
        self.homes = homes
        self.now = now
    }

    /// Whether this service answers `method` (the rest goes to the Screen Time API's owner).
    public static func answers(_ method: String) -> Bool { routes.answers(method) }

    /// The reply line to one request line, or nil for a line with no id (nothing to answer).
    public func handle(frame: Data, from peer: ServicePeer) -> Data? {
        var peer = peer
        return Self.routes.reply(to: frame, by: self, &peer)?.line
    }

    typealias Route = ServiceRoutes<ChildModeService, ServicePeer>.Route

    /// `method` answered for the caller its peer's credentials say it is.
    private static func route<Request, Reply>(
        _ method: ServiceMethod<Request, Reply>,
        _ handler: @escaping @Sendable (ChildModeService, Caller, Request) throws -> Reply
    ) -> Route {
        .on(method, errors: serviceError) { service, peer, request in
            try handler(service, try service.caller(peer), request.body)
        }
    }

    static let routes = ServiceRoutes<ChildModeService, ServicePeer>(
        [
            route(ChildMethods.whoAmI) { _, caller, _ in
                CallerIdentity(user: caller.account.name, uid: caller.account.uid, role: caller.role)
            },
            route(ChildMethods.add) { service, caller, request in
                try service.add(request.user, by: try service.guardian(caller, doing: "child add \(request.user)"))
            },
            route(ChildMethods.remove) { service, caller, request in
                try service.remove(
                    request.user, by: try service.guardian(caller, doing: "child remove \(request.user)"))
                return Empty()
            },
            route(ChildMethods.list) { service, caller, _ in
                _ = try service.guardian(caller, doing: "child list")
                return try service.state.managedUsers()
            },
            route(ChildMethods.events) { service, caller, request in
                _ = try service.guardian(caller, doing: "child events \(request.user)")
                // Also for a user no longer managed: the record outlives the management.
                let uid =
                    try service.accounts.account(named: request.user)?.uid
                    ?? service.managedUser(named: request.user).uid
                // With what happened on the household's other computers, as last read.
                let elsewhere = service.eventsElsewhere?(request.user) ?? []
                return (try service.state.events(uid: uid) + elsewhere).sorted { $0.at < $1.at }
            },
            route(ChildMethods.console) { service, caller, request in
                let doing = request.allowed.map { "child console \($0 ? "allow" : "deny") \(request.user)" }
                let guardian = try service.guardian(caller, doing: doing ?? "child console show \(request.user)")
                let user = try service.managedUser(named: request.user)
                if let allowed = request.allowed,
                    try service.state.setConsoleAllowed(
                        allowed, uid: user.uid, name: user.name, by: guardian.name, at: service.now())
                {
                    service.onConsoleAccessChanged?(user.uid)
                }
                return service.state.consoleAllowed(uid: user.uid)
            },
            route(ChildMethods.usage) { service, caller, query in try service.usage(query, for: caller) },
            route(ChildMethods.report) { service, caller, query in
                let owner = try service.readableOwner(query.user, for: caller, reading: .usage)
                do {
                    return try owner.report(query, calendar: service.calendar())
                } catch let error as ReportQueryError {
                    throw ChildModeService.invalidArgument(error)
                } catch let error as TimeArgument.ParseError {
                    throw ChildModeService.invalidArgument(error)
                }
            },
            route(ChildMethods.shields) { service, caller, query in
                let owner = try service.readableOwner(query.user, for: caller, reading: .shields)
                return try ShieldListing.load(
                    from: owner.ledger, directory: owner.service.directory, language: query.language)
            },
            route(ChildMethods.extensions) { service, caller, query in
                try service.extensionsListing(
                    try service.readableOwner(query.user, for: caller, reading: .extensions),
                    min(max(1, query.runs), 1000))
            },
            route(ChildMethods.apps) { service, caller, query in
                try service.readableOwner(query.user, for: caller, reading: .apps).service.appsWithAccess()
            },
            route(ChildMethods.revokeApp) { service, caller, request in
                let guardian = try service.guardian(caller, doing: "app revoke \(request.app) --user \(request.user)")
                try service.revoke(request.app, of: try service.managedUser(named: request.user), by: guardian)
                return Empty()
            },
            route(ChildMethods.enrollGuardian) { service, caller, _ in
                try service.enrollGuardian(try service.guardian(caller, doing: "guardian enroll"))
            },
            route(ChildMethods.unenrollGuardian) { service, caller, _ in
                try service.unenrollGuardian(try service.guardian(caller, doing: "guardian unenroll"))
            },
            route(ChildMethods.sessionLanguage) { service, caller, request in
                try service.sessionSpeaks(request.language, caller: caller)
                return Empty()
            },
        ],
        unknown: { method in
            ServiceError(
                .unknownMethod,
                Phrase("the daemon does not know the method {method}", context: "daemon", ["method": method]))
        })

    // MARK: Reading usage

    /// What of a managed user's a caller reads: its command (as the record of an attempt
    /// names it) is its raw value; its name in a sentence is a phrase, translated with it.
    public enum Readable: String, Sendable {
        case usage, shields, extensions, reports, apps

        var phrase: Phrase {
            switch self {
            case .apps: Phrase("apps with Screen Time access", context: "daemon.what")
            case .usage: Phrase("usage", context: "daemon.what")
            case .shields: Phrase("shields", context: "daemon.what")
            case .extensions: Phrase("extensions", context: "daemon.what")
            case .reports: Phrase("reports", context: "daemon.what")
            }
        }
    }

    /// `readableOwner(_:for:reading:)` for the caller on `peer`.
    public func readableOwner(_ name: String?, on peer: ServicePeer, reading what: Readable) throws
        -> ManagedUserOwner
    {
        try readableOwner(name, for: try caller(peer), reading: what)
    }

    /// The owner whose usage or shields `caller` may read: a managed user their own, a
    /// guardian any managed user's (named), nobody else anything.
    func readableOwner(_ name: String?, for caller: Caller, reading what: Readable) throws -> ManagedUserOwner {
        let user: ManagedUser
        switch caller.role {
        case .managed:
            guard name == nil || name == caller.account.name else {
                _ = try guardian(caller, doing: "\(what.rawValue) --user \(name ?? "")")
                throw ServiceError(
                    .unauthorized,
                    Phrase("a managed user reads only their own {what}", context: "daemon", ["what": what.phrase]))
            }
            user = try managedUser(named: caller.account.name)
        case .guardian:
            guard let name else {
                throw ServiceError(
                    .invalidArgument,
                    Phrase(
                        "name the managed user whose {what} to show (--user USER)", context: "daemon",
                        ["what": what.phrase]))
            }
            user = try managedUser(named: name)
        case .unmanaged:
            // Naming someone else is a guardian's to do; their own is their agent's.
            if let name, name != caller.account.name {
                _ = try guardian(caller, doing: "\(what.rawValue) --user \(name)")
            }
            throw ServiceError(
                .unauthorized,
                Phrase(
                    "the daemon keeps only managed users' {what}; {user}'s own are their agent's", context: "daemon",
                    ["what": what.phrase, "user": caller.account.name]))
        }
        guard let owner = owner(user.uid) else {
            throw ServiceError(
                .internalFailure,
                Phrase(
                    "the daemon could not open {user}'s ledger; its log says why", context: "daemon",
                    ["user": user.name]))
        }
        return owner
    }

    func usage(_ query: UsageQuery, for caller: Caller) throws -> UsageReport {
        let owner = try readableOwner(query.user, for: caller, reading: .usage)
        let now = self.now()
        let start: Date
        let end: Date
        do {
            start = try TimeArgument(query.since).resolve(now: now, calendar: calendar())
            end = try TimeArgument(query.until).resolve(now: now, calendar: calendar())
        } catch {
            throw Self.invalidArgument(error)
        }
        guard start <= end else {
            throw ServiceError(
                .invalidArgument,
                Phrase(
                    "--since ({since}) is after --until ({until})", context: "daemon",
                    ["since": query.since, "until": query.until]))
        }
        return try owner.usage(since: start, until: end, now: now)
    }

    // MARK: Apps with access

    /// A guardian takes `app`'s Screen Time access away from `user`: its stores and schedules go.
    func revoke(_ app: String, of user: ManagedUser, by guardian: Account) throws {
        guard let owner = owner(user.uid) else {
            // swift-format-ignore
            throw ServiceError(.internalFailure, Phrase("the daemon could not open {user}'s state; its log says why", context: "daemon", ["user": user.name]))
        }
        guard try owner.ledger.grant(for: app) != nil else {
            // swift-format-ignore
            throw ServiceError(.invalidArgument, Phrase("{app} holds no Screen Time access for {user}", context: "daemon", ["app": app, "user": user.name]))
        }
        try owner.service.revokeAuthorization(of: app).forEach { $0.send() }
        let values = ["guardian": guardian.name, "app": app, "child": user.name]
        // swift-format-ignore
        let what = Phrase("{guardian} took {app}'s Screen Time access for {child} away, from their own account", context: "event", values)
        try state.record(ChildEvent(at: now(), kind: .approved, actor: guardian.name, phrase: what), uid: user.uid)
    }

    // MARK: Managing children

    func add(_ name: String, by guardian: Account) throws -> ManagedUser {
        guard let account = try accounts.account(named: name) else {
            throw ServiceError(
                .invalidArgument, Phrase("there is no user {name} on this computer", context: "daemon", ["name": name]))
        }
        if let refusal = policy.refusalToManage(account) { throw ServiceError(.invalidArgument, refusal) }
        if let refusal = householdRefusal?() { throw refusal }
        let user = try state.manage(account, by: guardian.name, at: now())
        try homes.create(for: account.uid)
        onManagedUsersChanged?()
        onGuardianChangedManaged?(account.name, true, guardian.name)
        return user
    }

    func remove(_ name: String, by guardian: Account) throws {
        let user = try managedUser(named: name)
        if let refusal = householdRefusal?() { throw refusal }
        try state.unmanage(uid: user.uid, name: user.name, by: guardian.name, at: now())
        onManagedUsersChanged?()
        onGuardianChangedManaged?(user.name, false, guardian.name)
    }

    /// A managed user by name: the account's uid when it still exists (a renamed
    /// account is the same person), else the name the daemon recorded.
    func managedUser(named name: String) throws -> ManagedUser {
        if let account = try accounts.account(named: name), let user = try state.managedUser(uid: account.uid) {
            return user
        }
        if let user = try state.managedUsers().first(where: { $0.name == name }) { return user }
        throw ServiceError(.invalidArgument, DaemonStateError.notManaged(name).phrase)
    }

    // MARK: Callers

    public struct Caller: Sendable {
        public var account: Account
        public var role: Role
    }

    /// Whether the account named `name` is a guardian now (a guardian's dialog lists
    /// names; the one chosen is checked again here, never trusted).
    public func isGuardian(named name: String) -> Bool {
        guard let account = try? accounts.account(named: name), (try? state.managedUser(uid: account.uid)) == nil else {
            return false
        }
        return policy.role(of: account, isManaged: false) == .guardian
    }

    /// Who is calling, by the kernel's word, and what they may do.
    public func caller(_ peer: ServicePeer) throws -> Caller {
        guard let credentials = peer.credentials else {
            throw ServiceError(
                .unauthorized,
                Phrase(
                    "the daemon could not tell who is calling; it answers only identified local users",
                    context: "daemon"))
        }
        guard let account = try accounts.account(uid: credentials.uid) else {
            throw ServiceError(
                .unauthorized,
                Phrase(
                    "uid {uid} has no account on this computer", context: "daemon", ["uid": String(credentials.uid)]))
        }
        return Caller(
            account: account,
            role: policy.role(of: account, isManaged: try state.managedUser(uid: credentials.uid) != nil))
    }

    /// The caller's account if they are a guardian; otherwise a refusal, recorded when
    /// a managed user tried it.
    public func guardian(_ caller: Caller, doing action: String) throws -> Account {
        switch caller.role {
        case .guardian:
            return caller.account
        case .managed:
            let values = ["child": caller.account.name, "action": action]
            let what = Phrase(
                "{child} tried `screenward {action}`, which only a guardian may do", context: "event", values)
            try state.record(
                ChildEvent(at: now(), kind: .refused, actor: caller.account.name, phrase: what),
                uid: caller.account.uid)
            throw ServiceError(
                .unauthorized,
                Phrase(
                    "only a guardian can do this ({action}); ask one. The attempt was recorded.", context: "daemon",
                    ["action": action]))
        case .unmanaged:
            // swift-format-ignore
            let refusal = Phrase("only a guardian can do this ({action}): a guardian is root or a member of the group {group}", context: "daemon", ["action": action, "group": policy.guardianGroup])
            throw ServiceError(.unauthorized, refusal)
        }
    }

    public static func serviceError(_ error: any Error) -> ServiceError {
        switch error {
        case let error as ServiceError: error
        case let error as DaemonStateError:
            switch error {
            case .unusable: ServiceError(.internalFailure, error.phrase)
            case .alreadyManaged, .notManaged, .notALanguage: ServiceError(.invalidArgument, error.phrase)
            }
        default:
            ServiceError(
                .internalFailure,
                Phrase("the daemon failed: {error}", context: "daemon", ["error": Phrase.Value.said(by: error)]))
        }
    }

    /// An argument refused for `error`: in its own words, translated when they are a phrase.
    static func invalidArgument(_ error: any Error) -> ServiceError {
        if let error = error as? any PhrasedError { return ServiceError(.invalidArgument, error.phrase) }
        return ServiceError(.invalidArgument, "\(error)")
    }
}

/// Where each managed user's ledger and settings live: `users/<uid>` in the daemon's
/// state directory, mode 0700 like the directory itself (root's alone).
public struct ChildHomes: Sendable {
    public let directory: URL

    public init(stateDirectory: URL) {
        directory = stateDirectory.appendingPathComponent("users", isDirectory: true)
    }

    public func home(for uid: UInt32) -> ScreenwardHome {
        ScreenwardHome(url: directory.appendingPathComponent(String(uid), isDirectory: true))
    }

    func create(for uid: UInt32) throws {
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try home(for: uid).create()
    }
}
