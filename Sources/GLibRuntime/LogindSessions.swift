import CGLib
import Foundation

/// Follows all of systemd-logind's sessions, for a system daemon: which exist, and
/// their user, type, display, activity and state; and locks or ends them.
///
/// It uses its own connection to the system bus; GLib takes the address from
/// $DBUS_SYSTEM_BUS_ADDRESS when set (tests point it at a private bus).
///
/// Threading: not thread-safe. Call `start` on the thread that runs the GLib default
/// main context (the daemon's `MainLoop.run()`, or `g_main_loop_run` on a thread of its
/// own: then call `start` from that thread, e.g. from a `LoopMailbox`'s receiver, not from
/// the thread that created the loop). Signals and the replies it waits for are
/// delivered on the thread-default main context of the thread that called `start`,
/// and the handler runs there; call the other methods on that thread too.
/// `lockSession` and `terminateSession` block that thread until logind answers (at
/// most `callTimeout`).
///
/// Changes are reported when a session's values change; values of the wrong type are
/// ignored with a logged reason (a session whose properties cannot all be read is left
/// out), never read. Signals that arrive while `start` reads the list are applied
/// afterwards, so a session may briefly appear to flip back and forth; the last change
/// reported is logind's current state.
public final class LogindSessions {
    /// What changed; `previous` is the session as last reported.
    public enum Change: Sendable, Equatable {
        case added(LogindSession)
        case changed(LogindSession, previous: LogindSession)
        case removed(LogindSession)
    }

    /// The sessions as last reported, by id.
    public private(set) var sessions: [SessionID: LogindSession] = [:]
    /// How long `lockSession` and `terminateSession` wait for logind, in milliseconds.
    public var callTimeout: Int32 = 5000

    private let log: (String) -> Void
    private var connection: OpaquePointer?
    private var subscriptions: [guint] = []
    private var handler: (Change) -> Void = { _ in }
    /// New sessions whose properties are being read, by object path.
    private var pending: Set<String> = []
    /// Bumped by start and stop, so that replies to an earlier start are dropped.
    private var generation = 0

    /// `log` receives the reasons values are ignored; standard error by default.
    public init(log: @escaping (String) -> Void = { FileHandle.standardError.write(Data("logind: \($0)\n".utf8)) }) {
        self.log = log
    }

    deinit { stop() }

    /// Connects, subscribes to logind's signals, lists the sessions and reports each
    /// as `.added` (in logind's order) before returning; later changes follow through
    /// `handler` on this thread's main context.
    ///
    /// - Throws: `LogindSessionsError` when there is no system bus, no logind, the list
    ///   is refused, or it has the wrong type.
    public func start(_ handler: @escaping (Change) -> Void) throws {
        stop()
        let address: String
        switch DBusBus.systemBusAddress() {
        case .success(let found): address = found
        case .failure(let failure): throw LogindSessionsError.noSystemBus(address: "(unknown)", reason: failure.message)
        }
        let connection: OpaquePointer
        switch DBusBus.connect(address: address) {
        case .success(let opened): connection = opened
        case .failure(let failure): throw LogindSessionsError.noSystemBus(address: address, reason: failure.message)
        }
        self.connection = connection
        generation += 1
        // Subscribe before listing, so that no session can fall between the two.
        subscribe()
        let found: [LogindSession]
        do {
            found = try listSessions(on: connection)
        } catch {
            stop()
            throw error
        }
        self.handler = handler
        let started = generation
        for session in found where sessions[session.id] == nil {
            sessions[session.id] = session
            handler(.added(session))
            guard generation == started else { return }  // the handler stopped us
        }
    }

    /// Unsubscribes and closes the connection; nothing is reported afterwards.
    public func stop() {
        generation += 1
        handler = { _ in }
        sessions = [:]
        pending = []
        guard let connection else { return }
        for id in subscriptions { g_dbus_connection_signal_unsubscribe(connection, id) }
        subscriptions = []
        DBusBus.close(connection)
        self.connection = nil
    }

    /// Asks logind to lock the session (`LockSession`): it tells the session's screen
    /// locker, which sets LockedHint once the screen is locked.
    public func lockSession(_ id: SessionID) throws {
        try control("LockSession", id)
    }

    /// Asks logind to end the session (`TerminateSession`): its processes are killed.
    /// The session leaves `sessions` when logind says it is gone (`.removed`).
    public func terminateSession(_ id: SessionID) throws {
        try control("TerminateSession", id)
    }

    /// Sends `signal` to every process of the session (`KillSession` with "all"): what a
    /// `TerminateSession` left running, as a process that ignores SIGTERM would be.
    public func killSession(_ id: SessionID, signal: Int32) throws {
        try control("KillSession", id, [g_variant_new_string("all"), g_variant_new_int32(signal)])
    }

    // MARK: Calls

    private func control(_ method: String, _ id: SessionID, _ more: [OpaquePointer?] = []) throws {
        guard let connection else { throw LogindSessionsError.notStarted(method: method) }
        let result = DBusBus.call(
            connection, destination: LogindWatcher.busName, path: LogindWatcher.managerPath,
            interface: LogindWatcher.managerInterface, method: method,
            arguments: [g_variant_new_string(id.rawValue)] + more, timeout: callTimeout)
        if case .failure(let failure) = result { throw Self.error(method: method, session: id, failure) }
    }

    private static func error(method: String, session: SessionID?, _ failure: DBusFailure) -> LogindSessionsError {
        if failure.isNoSuchService { return .noLogind(reason: failure.description) }
        switch (failure.name, session) {
        case ("org.freedesktop.DBus.Error.AccessDenied", _),
            ("org.freedesktop.DBus.Error.InteractiveAuthorizationRequired", _):
            return .accessDenied(method: method, session: session, reason: failure.message)
        case ("org.freedesktop.login1.NoSuchSession", let id?):
            return .noSuchSession(id, reason: failure.message)
        default:
            return .callFailed(method: method, session: session, reason: failure.description)
        }
    }

    /// ListSessions, then each session's properties. A session that ends between the
    /// two, or whose properties are malformed, is left out.
    private func listSessions(on connection: OpaquePointer) throws -> [LogindSession] {
        let reply: VariantRef
        switch DBusBus.call(
            connection, destination: LogindWatcher.busName, path: LogindWatcher.managerPath,
            interface: LogindWatcher.managerInterface, method: "ListSessions", arguments: [])
        {
        case .success(let answer): reply = answer
        case .failure(let failure): throw Self.error(method: "ListSessions", session: nil, failure)
        }
        // a(susso): id, uid, user name, seat id, object path.
        guard reply.typeString == "(a(susso))", let entries = reply.child(0) else {
            throw LogindSessionsError.malformedReply(method: "ListSessions", type: reply.typeString)
        }
        return entries.children.compactMap { entry in
            guard let path = entry.child(4)?.string else { return nil }
            switch DBusBus.call(
                connection, destination: LogindWatcher.busName, path: path,
                interface: LogindWatcher.propertiesInterface,
                method: "GetAll", arguments: [g_variant_new_string(LogindWatcher.sessionInterface)])
            {
            case .success(let properties): return session(at: path, from: properties)
            case .failure(let failure):
                log("left out session \(path): cannot read its properties: \(failure)")
                return nil
            }
        }
    }

    /// The session a GetAll reply `(a{sv})` describes, or nil (logged) when it is malformed.
    private func session(at path: String, from reply: VariantRef) -> LogindSession? {
        guard reply.typeString == "(a{sv})", let properties = reply.child(0) else {
            log("left out session \(path): GetAll answered a value of type \(reply.typeString), not (a{sv})")
            return nil
        }
        var session = LogindSession(
            id: SessionID(""), objectPath: path, uid: 0, userName: "", type: .unspecified, display: "", isActive: false,
            state: .other(""), isRemote: false, leaderPID: 0, sessionClass: "", seat: nil, isLocked: false)
        var problems: [String] = []
        for (name, type) in LogindSession.propertyTypes.sorted(by: { $0.key < $1.key }) {
            guard let value = properties.value(forKey: name) else {
                problems.append("no \(name)")
                continue
            }
            if !session.set(name, to: value) { problems.append("\(name) has type \(value.typeString), not \(type)") }
        }
        guard problems.isEmpty, !session.id.rawValue.isEmpty else {
            log("left out session \(path): \(problems.isEmpty ? "empty Id" : problems.joined(separator: ", "))")
            return nil
        }
        return session
    }

    // MARK: Signals

    private func subscribe() {
        let manager = (LogindWatcher.managerPath, LogindWatcher.managerInterface)
        add(interface: manager.1, member: "SessionNew", path: manager.0)
        add(interface: manager.1, member: "SessionRemoved", path: manager.0)
        // Every session's PropertiesChanged in one subscription; sorted out by path.
        add(
            interface: LogindWatcher.propertiesInterface, member: "PropertiesChanged", path: nil,
            arg0: LogindWatcher.sessionInterface)
    }

    private func add(interface: String, member: String, path: String?, arg0: String? = nil) {
        guard let connection else { return }
        let target = Unmanaged.passRetained(SessionsTarget(self, generation: generation)).toOpaque()
        let id = g_dbus_connection_signal_subscribe(
            connection, LogindWatcher.busName, interface, member, path, arg0, G_DBUS_SIGNAL_FLAGS_NONE,
            sessionsSignalReceived, target, releaseSessionsTarget)
        subscriptions.append(id)
    }

    fileprivate func received(member: String, path: String, parameters: VariantRef, generation: Int) {
        guard generation == self.generation, connection != nil else { return }
        switch member {
        case "SessionNew", "SessionRemoved":
            guard parameters.typeString == "(so)", let id = parameters.child(0)?.string,
                let sessionPath = parameters.child(1)?.string
            else {
                log("ignored \(member) with arguments of type \(parameters.typeString), not (so)")
                return
            }
            if member == "SessionNew" {
                readProperties(of: sessionPath)
            } else {
                sessionRemoved(SessionID(id), path: sessionPath)
            }
        case "PropertiesChanged":
            propertiesChanged(path: path, parameters: parameters)
        default:
            break
        }
    }

    private func sessionRemoved(_ id: SessionID, path: String) {
        pending.remove(path)
        guard let session = sessions[id] ?? sessions.values.first(where: { $0.objectPath == path }) else { return }
        sessions[session.id] = nil
        handler(.removed(session))
    }

    private func propertiesChanged(path: String, parameters: VariantRef) {
        // (sa{sv}as): interface, changed values, invalidated names.
        guard let previous = sessions.values.first(where: { $0.objectPath == path }) else {
            return  // pending or not ours
        }
        guard parameters.typeString == "(sa{sv}as)", let changed = parameters.child(1),
            let invalidated = parameters.child(2)?.strings
        else {
            log(
                """
                ignored PropertiesChanged of session \(previous.id) with \
                arguments of type \(parameters.typeString), not (sa{sv}as)
                """
            )
            return
        }
        var session = previous
        for entry in changed.children {
            guard let name = entry.child(0)?.string, let value = entry.child(1)?.unboxed,
                let type = LogindSession.propertyTypes[name], name != "Id"
            else { continue }
            if !session.set(name, to: value) {
                log("ignored \(name) of session \(previous.id): type \(value.typeString), not \(type)")
            }
        }
        update(session, from: previous)
        if invalidated.contains(where: { LogindSession.propertyTypes[$0] != nil }) { readProperties(of: path) }
    }

    /// How a bus says an object path no longer exists: sd-bus (logind) answers UnknownObject;
    /// GDBus, which has no such name, UnknownMethod "Object does not exist at path …".
    private static func objectIsGone(_ failure: DBusFailure) -> Bool {
        switch failure.name {
        case "org.freedesktop.DBus.Error.UnknownObject": true
        case "org.freedesktop.DBus.Error.UnknownMethod": failure.message.contains("Object does not exist")
        default: false
        }
    }

    private func update(_ session: LogindSession, from previous: LogindSession) {
        guard session != previous else { return }
        sessions[session.id] = session
        handler(.changed(session, previous: previous))
    }

    /// Reads a session's properties without blocking the loop: a new session, or one
    /// whose values logind only invalidated.
    private func readProperties(of path: String) {
        guard let connection else { return }
        let isKnown = sessions.values.contains { $0.objectPath == path }
        if !isKnown { pending.insert(path) }
        let target = Unmanaged.passRetained(SessionsTarget(self, generation: generation, path: path)).toOpaque()
        g_dbus_connection_call(
            connection, LogindWatcher.busName, path, LogindWatcher.propertiesInterface, "GetAll",
            VariantBuilder.tuple([g_variant_new_string(LogindWatcher.sessionInterface)]), nil, G_DBUS_CALL_FLAGS_NONE,
            5000,
            nil, sessionPropertiesReplied, target)
    }

    fileprivate func propertiesArrived(_ result: Result<VariantRef, DBusFailure>, path: String, generation: Int) {
        guard generation == self.generation, connection != nil else { return }
        let known = sessions.values.first { $0.objectPath == path }
        guard known != nil || pending.remove(path) != nil else { return }  // removed meanwhile
        let reply: VariantRef
        switch result {
        case .success(let answer): reply = answer
        case .failure(let failure):
            // A new session whose object is gone already went before it could be read: its
            // SessionRemoved may come after this answer (the fake's GDBus answers for a gone
            // object on a thread of its own). Nothing was reported, so nothing is lost.
            if known == nil, Self.objectIsGone(failure) { return }
            log("cannot read the properties of session \(path): \(failure)")
            return
        }
        guard let session = session(at: path, from: reply) else { return }
        if let known {
            update(session, from: known)
        } else if let previous = sessions[session.id] {
            update(session, from: previous)
        } else {
            sessions[session.id] = session
            handler(.added(session))
        }
    }
}

extension LogindSession {
    /// The properties read, with the D-Bus types logind gives them.
    static let propertyTypes = [
        "Id": "s", "User": "(uo)", "Name": "s", "Type": "s", "Display": "s", "Active": "b", "State": "s",
        "Remote": "b", "Leader": "u", "Class": "s", "Seat": "(so)", "LockedHint": "b",
        "Service": "s", "TTY": "s",
    ]

    /// Sets `property` from `value`; false (and nothing changed) when the value's type
    /// is not logind's.
    mutating func set(_ property: String, to value: VariantRef) -> Bool {
        guard value.typeString == Self.propertyTypes[property] else { return false }
        switch property {
        case "Id": value.string.map { id = SessionID($0) }
        case "User": value.child(0)?.uint32.map { uid = $0 }
        case "Name": value.string.map { userName = $0 }
        case "Type": value.string.map { type = SessionType($0) }
        case "Display": value.string.map { display = $0 }
        case "Active": value.bool.map { isActive = $0 }
        case "State": value.string.map { state = State($0) }
        case "Remote": value.bool.map { isRemote = $0 }
        case "Leader": value.uint32.map { leaderPID = $0 }
        case "Class": value.string.map { sessionClass = $0 }
        case "Seat": value.child(0)?.string.map { seat = $0.isEmpty ? nil : $0 }
        case "LockedHint": value.bool.map { isLocked = $0 }
        case "Service": value.string.map { service = $0 }
        case "TTY": value.string.map { tty = $0 }
        default: return false
        }
        return true
    }
}

/// What a subscription's or a call's user data points to: weak, so GLib never keeps
/// the follower alive; with the generation it belongs to and, for a call, the path.
private final class SessionsTarget {
    weak var follower: LogindSessions?
    let generation: Int
    let path: String
    init(_ follower: LogindSessions, generation: Int, path: String = "") {
        self.follower = follower
        self.generation = generation
        self.path = path
    }
}

private let sessionsSignalReceived: GDBusSignalCallback = { _, _, path, _, member, parameters, data in
    guard let data, let path, let member, let parameters else { return }
    let target = Unmanaged<SessionsTarget>.fromOpaque(data).takeUnretainedValue()
    target.follower?.received(
        member: String(cString: member), path: String(cString: path), parameters: VariantRef(retaining: parameters),
        generation: target.generation)
}

private let releaseSessionsTarget: GDestroyNotify = { data in
    guard let data else { return }
    Unmanaged<SessionsTarget>.fromOpaque(data).release()
}

private let sessionPropertiesReplied: GAsyncReadyCallback = { source, result, data in
    guard let data else { return }
    let target = Unmanaged<SessionsTarget>.fromOpaque(data).takeRetainedValue()
    var error: UnsafeMutablePointer<GError>?
    let outcome: Result<VariantRef, DBusFailure>
    if let source, let reply = g_dbus_connection_call_finish(OpaquePointer(source), result, &error) {
        outcome = .success(VariantRef(adopting: reply))
    } else {
        outcome = .failure(DBusFailure(consuming: error))
    }
    target.follower?.propertiesArrived(outcome, path: target.path, generation: target.generation)
}
