import CGLib
import Foundation
import GLibRuntime
import X11Session

/// A test double of systemd-logind on a private bus, for `screenward-fake-logind` and
/// the integration tests of `LogindWatcher` and `LogindSessions`. Never point it at the
/// real system bus.
///
/// It owns org.freedesktop.login1 and keeps sessions: the first one (from `Options`)
/// answers the manager's `GetSessionByPID`; `GetSession` and `ListSessions` know them
/// all; each session serves logind's properties (Id, User, Name, Type, Display, Active,
/// State, Remote, Leader, Class, Seat, LockedHint). Adding and removing sessions emits
/// `SessionNew`/`SessionRemoved`, changing them `PropertiesChanged`. `LockSession` sets
/// LockedHint and emits the session's `Lock`; `TerminateSession` removes the session;
/// both are recorded in `calls`, as are a session's `SetLockedHint` and `SetIdleHint` (which
/// its owner may call on real logind; the fake sets LockedHint for anyone). It also emits on
/// request what logind emits for the first session and the machine: PropertiesChanged for
/// LockedHint, `Lock`/`Unlock`,
/// `PrepareForSleep`. Method calls arrive on the thread-default main context of the
/// thread that created it.
public final class FakeLogindService {
    public struct Options: Sendable {
        /// The first session's id (its object path is derived from it as logind does).
        public var sessionID = "1"
        /// The initial value of the first session's LockedHint.
        public var lockedHint = false
        /// Whether GetSessionByPID answers; if not, it fails as logind does for a
        /// process outside any session, and only GetSession finds the session.
        public var answersGetSessionByPID = true
        /// GetSessionByPID answers with a string instead of an object path,
        /// ListSessions with strings, and the first session is malformed: for testing
        /// that clients check types.
        public var malformedReplies = false

        public init() {}
    }

    /// How a change of LockedHint is announced.
    public enum Announcement: Sendable {
        /// PropertiesChanged carries the new value (what logind does).
        case value
        /// PropertiesChanged only lists LockedHint as invalidated.
        case invalidation
    }

    public let options: Options
    /// The first session's object path: the one GetSessionByPID answers.
    public let sessionPath: String
    /// The sessions, in the order they were added.
    public private(set) var sessions: [Session] = []
    public var lockedHint: Bool { sessions.first { $0.objectPath == sessionPath }?.lockedHint ?? false }
    /// The lookups clients made, e.g. "GetSessionByPID 1234", "GetSession 1".
    public private(set) var lookups: [String] = []
    /// The session controls clients asked for, e.g. "LockSession c2", "TerminateSession
    /// c2", with " -> <error name>" when refused.
    public private(set) var calls: [String] = []
    /// Refuse LockSession and TerminateSession with AccessDenied, as the bus policy or
    /// polkit does for an unprivileged caller.
    public var deniesSessionControl = false

    private let connection: OpaquePointer
    private let nodeInfo: UnsafeMutablePointer<GDBusNodeInfo>
    /// The declarations a malformed session is registered with.
    private let malformedNodeInfo: UnsafeMutablePointer<GDBusNodeInfo>
    private let vtable: UnsafeMutablePointer<GDBusInterfaceVTable>
    private var managerRegistration: guint = 0
    private var sessionRegistrations: [String: guint] = [:]

    /// Connects to the bus at `address`, registers the objects and takes the name.
    public init(address: String, options: Options = Options()) throws {
        self.options = options
        var first = Session(id: options.sessionID)
        first.lockedHint = options.lockedHint
        first.leader = UInt32(getpid())
        first.malformed = options.malformedReplies
        sessionPath = first.objectPath

        switch DBusBus.connect(address: address) {
        case .success(let opened): connection = opened
        case .failure(let failure): throw FakeLogindError("cannot connect to the bus at \(address): \(failure)")
        }
        var error: UnsafeMutablePointer<GError>?
        guard let info = g_dbus_node_info_new_for_xml(Self.introspection(malformed: options.malformedReplies), &error),
            let malformedInfo = g_dbus_node_info_new_for_xml(Self.introspection(malformed: true), &error)
        else {
            DBusBus.close(connection)
            throw FakeLogindError("bad introspection XML: \(DBusFailure(consuming: error))")
        }
        nodeInfo = info
        malformedNodeInfo = malformedInfo
        vtable = .allocate(capacity: 1)
        vtable.initialize(
            to: GDBusInterfaceVTable(
                method_call: fakeMethodCall, get_property: fakeGetProperty, set_property: nil,
                padding: (nil, nil, nil, nil, nil, nil, nil, nil)))

        do {
            managerRegistration = try register(
                path: LogindWatcher.managerPath, interface: LogindWatcher.managerInterface, in: nodeInfo)
            try addSession(first, announcing: false)
            try requestName()
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    // MARK: Sessions

    /// Adds a session and emits SessionNew (unless `announcing` is false).
    public func addSession(_ session: Session, announcing: Bool = true) throws {
        guard !sessions.contains(where: { $0.id == session.id || $0.objectPath == session.objectPath }) else {
            throw FakeLogindError("session \(session.id) exists")
        }
        let info = session.malformed ? malformedNodeInfo : nodeInfo
        sessionRegistrations[session.id] = try register(
            path: session.objectPath, interface: LogindWatcher.sessionInterface, in: info)
        sessions.append(session)
        if announcing { emitSessionSignal("SessionNew", session) }
    }

    /// Removes a session and emits SessionRemoved.
    public func removeSession(id: String) throws {
        guard let index = sessions.firstIndex(where: { $0.id == id }) else { throw FakeLogindError("no session \(id)") }
        let session = sessions.remove(at: index)
        if let registration = sessionRegistrations.removeValue(forKey: id) {
            g_dbus_connection_unregister_object(connection, registration)
        }
        emitSessionSignal("SessionRemoved", session)
    }

    /// Changes a session's properties from control fields (`active=no state=online`)
    /// and announces the changed ones with PropertiesChanged, as logind does.
    public func updateSession(id: String, fields: [String]) throws {
        guard let index = sessions.firstIndex(where: { $0.id == id }) else { throw FakeLogindError("no session \(id)") }
        var session = sessions[index]
        let changed = try session.apply(fields)
        guard session.malformed == sessions[index].malformed else {
            throw FakeLogindError("malformed is fixed when a session is added")
        }
        sessions[index] = session
        if !changed.isEmpty { announce(session, changed: changed) }
    }

    /// Emits signals about `id` with arguments of the wrong types, which a client must
    /// ignore: SessionNew and SessionRemoved with a lone string or a number, and the
    /// session's PropertiesChanged with Active as a string, State as a number, and with
    /// a lone string.
    public func emitMalformedSessionSignals(id: String) throws {
        guard let session = sessions.first(where: { $0.id == id }) else { throw FakeLogindError("no session \(id)") }
        let manager = (LogindWatcher.managerPath, LogindWatcher.managerInterface)
        for signal in ["SessionNew", "SessionRemoved"] {
            emit(path: manager.0, interface: manager.1, signal: signal, arguments: [g_variant_new_string(id)])
            emit(
                path: manager.0, interface: manager.1, signal: signal,
                arguments: [g_variant_new_uint32(7), g_variant_new_string(id)])
        }
        emit(
            path: session.objectPath, interface: LogindWatcher.propertiesInterface, signal: "PropertiesChanged",
            arguments: [
                g_variant_new_string(LogindWatcher.sessionInterface),
                VariantBuilder.dictionary([
                    ("Active", g_variant_new_string("no")!), ("State", g_variant_new_uint32(3)!),
                ]),
                VariantBuilder.strings([]),
            ])
        emit(
            path: session.objectPath, interface: LogindWatcher.propertiesInterface, signal: "PropertiesChanged",
            arguments: [g_variant_new_string(LogindWatcher.sessionInterface)])
    }

    // MARK: Emitting about the first session and the machine

    /// Changes the first session's LockedHint and announces it with PropertiesChanged.
    public func setLocked(_ locked: Bool, announcing announcement: Announcement = .value) {
        guard let index = sessions.firstIndex(where: { $0.objectPath == sessionPath }) else { return }
        sessions[index].lockedHint = locked
        if announcement == .value {
            announce(sessions[index], changed: ["LockedHint"])
        } else {
            emit(
                path: sessionPath, interface: LogindWatcher.propertiesInterface, signal: "PropertiesChanged",
                arguments: [
                    g_variant_new_string(LogindWatcher.sessionInterface), VariantBuilder.dictionary([]),
                    VariantBuilder.strings(["LockedHint"]),
                ])
        }
    }

    /// Emits the first session's `Lock` (true) or `Unlock` (false) signal, as
    /// `loginctl lock-session` makes logind do; LockedHint is left alone.
    public func emitLockSignal(_ lock: Bool) {
        emit(
            path: sessionPath, interface: LogindWatcher.sessionInterface, signal: lock ? "Lock" : "Unlock",
            arguments: [])
    }

    /// Emits the manager's `PrepareForSleep(b)`.
    public func prepareForSleep(_ sleeping: Bool) {
        emit(
            path: LogindWatcher.managerPath, interface: LogindWatcher.managerInterface, signal: "PrepareForSleep",
            arguments: [g_variant_new_boolean(sleeping ? 1 : 0)])
    }

    /// Emits the same signals with arguments of the wrong types, which a client must
    /// ignore: PrepareForSleep(s), PrepareForSleep(), PropertiesChanged with
    /// LockedHint as a string, and PropertiesChanged with a lone string.
    public func emitMalformedSignals() {
        let manager = (LogindWatcher.managerPath, LogindWatcher.managerInterface)
        emit(path: manager.0, interface: manager.1, signal: "PrepareForSleep", arguments: [g_variant_new_string("yes")])
        emit(path: manager.0, interface: manager.1, signal: "PrepareForSleep", arguments: [])
        emit(
            path: sessionPath, interface: LogindWatcher.propertiesInterface, signal: "PropertiesChanged",
            arguments: [
                g_variant_new_string(LogindWatcher.sessionInterface),
                VariantBuilder.dictionary([("LockedHint", g_variant_new_string("yes"))]), VariantBuilder.strings([]),
            ])
        emit(
            path: sessionPath, interface: LogindWatcher.propertiesInterface, signal: "PropertiesChanged",
            arguments: [g_variant_new_string(LogindWatcher.sessionInterface)])
    }

    /// Waits until everything emitted so far has been written to the bus.
    public func flush() {
        g_dbus_connection_flush_sync(connection, nil, nil)
    }

    // MARK: Serving

    fileprivate func methodCall(_ method: String, path: String, parameters: VariantRef, invocation: OpaquePointer) {
        switch method {
        case "SetLockedHint", "SetIdleHint":
            // A session's owner may set these on real logind; the fake lets anyone.
            let value = parameters.child(0)?.bool ?? false
            guard let index = sessions.firstIndex(where: { $0.objectPath == path }) else {
                return g_dbus_method_invocation_return_dbus_error(
                    invocation, "org.freedesktop.DBus.Error.UnknownObject", path)
            }
            calls.append("\(method) \(sessions[index].id) \(value)")
            g_dbus_method_invocation_return_value(invocation, VariantBuilder.tuple([]))
            if method == "SetLockedHint", sessions[index].lockedHint != value {
                sessions[index].lockedHint = value
                announce(sessions[index], changed: ["LockedHint"])
            }
        case "GetSessionByPID":
            let pid = parameters.child(0)?.uint32 ?? 0
            lookups.append("GetSessionByPID \(pid)")
            if !options.answersGetSessionByPID {
                g_dbus_method_invocation_return_dbus_error(
                    invocation, "org.freedesktop.login1.NoSessionForPID",
                    "PID \(pid) does not belong to any known session")
            } else if options.malformedReplies {
                g_dbus_method_invocation_return_value(
                    invocation, VariantBuilder.tuple([g_variant_new_string(sessionPath)]))
            } else {
                g_dbus_method_invocation_return_value(
                    invocation, VariantBuilder.tuple([g_variant_new_object_path(sessionPath)]))
            }
        case "GetSession":
            let id = parameters.child(0)?.string ?? ""
            lookups.append("GetSession \(id)")
            if let session = sessions.first(where: { $0.id == id }) {
                g_dbus_method_invocation_return_value(
                    invocation, VariantBuilder.tuple([g_variant_new_object_path(session.objectPath)]))
            } else {
                returnNoSuchSession(id, invocation)
            }
        case "ListSessions":
            g_dbus_method_invocation_return_value(invocation, VariantBuilder.tuple([listing()]))
        case "LockSession", "TerminateSession":
            let id = parameters.child(0)?.string ?? ""
            let call = "\(method) \(id)"
            if deniesSessionControl {
                calls.append(call + " -> org.freedesktop.DBus.Error.AccessDenied")
                g_dbus_method_invocation_return_dbus_error(
                    invocation, "org.freedesktop.DBus.Error.AccessDenied", "Access denied (the fake was told to refuse)"
                )
            } else if let session = sessions.first(where: { $0.id == id }) {
                calls.append(call)
                g_dbus_method_invocation_return_value(invocation, VariantBuilder.tuple([]))
                if method == "LockSession" { lock(session) } else { try? removeSession(id: id) }
            } else {
                calls.append(call + " -> org.freedesktop.login1.NoSuchSession")
                returnNoSuchSession(id, invocation)
            }
        default:
            g_dbus_method_invocation_return_dbus_error(
                invocation, "org.freedesktop.DBus.Error.UnknownMethod", "Unknown method \(method)")
        }
    }

    fileprivate func property(_ name: String, path: String) -> OpaquePointer? {
        sessions.first { $0.objectPath == path }?.value(of: name)
    }

    /// ListSessions' answer: `a(susso)` (id, uid, user name, seat id, object path), or
    /// the ids as strings when malformed.
    private func listing() -> OpaquePointer {
        if options.malformedReplies { return VariantBuilder.strings(sessions.map(\.id)) }
        let entries: [OpaquePointer?] = sessions.map { session in
            VariantBuilder.tuple([
                g_variant_new_string(session.id), g_variant_new_uint32(session.uid), g_variant_new_string(session.name),
                g_variant_new_string(session.seat), g_variant_new_object_path(session.objectPath),
            ])
        }
        guard !entries.isEmpty else {
            let type = g_variant_type_new("(susso)")
            defer { g_variant_type_free(type) }
            return g_variant_new_array(type, nil, 0)
        }
        return entries.withUnsafeBufferPointer { g_variant_new_array(nil, $0.baseAddress, gsize($0.count)) }
    }

    /// What logind does on LockSession, plus what a locker obeying it does: LockedHint.
    private func lock(_ session: Session) {
        emit(path: session.objectPath, interface: LogindWatcher.sessionInterface, signal: "Lock", arguments: [])
        guard let index = sessions.firstIndex(of: session), !session.lockedHint else { return }
        sessions[index].lockedHint = true
        announce(sessions[index], changed: ["LockedHint"])
    }

    private func returnNoSuchSession(_ id: String, _ invocation: OpaquePointer) {
        g_dbus_method_invocation_return_dbus_error(
            invocation, "org.freedesktop.login1.NoSuchSession", "No session '\(id)' known")
    }

    // MARK: Plumbing

    private func announce(_ session: Session, changed: [String]) {
        let values = changed.compactMap { name in session.value(of: name).map { (name, $0) } }
        emit(
            path: session.objectPath, interface: LogindWatcher.propertiesInterface, signal: "PropertiesChanged",
            arguments: [
                g_variant_new_string(LogindWatcher.sessionInterface), VariantBuilder.dictionary(values),
                VariantBuilder.strings([]),
            ])
    }

    private func emitSessionSignal(_ signal: String, _ session: Session) {
        emit(
            path: LogindWatcher.managerPath, interface: LogindWatcher.managerInterface, signal: signal,
            arguments: [g_variant_new_string(session.id), g_variant_new_object_path(session.objectPath)])
    }

    private func emit(path: String, interface: String, signal: String, arguments: [OpaquePointer?]) {
        var error: UnsafeMutablePointer<GError>?
        if g_dbus_connection_emit_signal(
            connection, nil, path, interface, signal, VariantBuilder.tuple(arguments), &error) == 0
        {
            FileHandle.standardError.write(
                Data("fake logind: cannot emit \(signal): \(DBusFailure(consuming: error))\n".utf8))
        }
    }

    private func register(path: String, interface: String, in info: UnsafeMutablePointer<GDBusNodeInfo>) throws -> guint
    {
        guard let interfaceInfo = g_dbus_node_info_lookup_interface(info, interface) else {
            throw FakeLogindError("no interface \(interface) in the introspection XML")
        }
        var error: UnsafeMutablePointer<GError>?
        let target = Unmanaged.passRetained(FakeTarget(self)).toOpaque()
        let id = g_dbus_connection_register_object(
            connection, path, interfaceInfo, vtable, target, releaseFakeTarget, &error)
        guard id != 0 else { throw FakeLogindError("cannot register \(path): \(DBusFailure(consuming: error))") }
        return id
    }

    private func requestName() throws {
        let doNotQueue: UInt32 = 4
        switch DBusBus.call(
            connection, destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
            interface: "org.freedesktop.DBus", method: "RequestName",
            arguments: [g_variant_new_string(LogindWatcher.busName), g_variant_new_uint32(doNotQueue)])
        {
        case .success(let reply):
            guard reply.child(0)?.uint32 == 1 else {
                throw FakeLogindError("\(LogindWatcher.busName) is already owned on this bus")
            }
        case .failure(let failure):
            throw FakeLogindError("cannot own \(LogindWatcher.busName): \(failure)")
        }
    }

    private var isClosed = false

    private func close() {
        guard !isClosed else { return }
        isClosed = true
        for id in [managerRegistration] + sessionRegistrations.values where id != 0 {
            g_dbus_connection_unregister_object(connection, id)
        }
        sessionRegistrations = [:]
        DBusBus.close(connection)
        g_dbus_node_info_unref(nodeInfo)
        g_dbus_node_info_unref(malformedNodeInfo)
        vtable.deinitialize(count: 1)
        vtable.deallocate()
    }
}

public struct FakeLogindError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

private final class FakeTarget {
    weak var service: FakeLogindService?
    init(_ service: FakeLogindService) { self.service = service }
}

private let releaseFakeTarget: GDestroyNotify = { data in
    guard let data else { return }
    Unmanaged<FakeTarget>.fromOpaque(data).release()
}

private let fakeMethodCall: GDBusInterfaceMethodCallFunc = { _, _, path, _, method, parameters, invocation, data in
    guard let invocation else { return }
    guard let data, let method, let parameters, let path,
        let service = Unmanaged<FakeTarget>.fromOpaque(data).takeUnretainedValue().service
    else {
        g_dbus_method_invocation_return_dbus_error(invocation, "org.freedesktop.DBus.Error.Failed", "gone")
        return
    }
    service.methodCall(
        String(cString: method), path: String(cString: path), parameters: VariantRef(retaining: parameters),
        invocation: invocation)
}

private let fakeGetProperty: GDBusInterfaceGetPropertyFunc = { _, _, path, _, name, error, data in
    // GDBus asserts that an error is set whenever this returns NULL.
    guard let data, let path, let name,
        let service = Unmanaged<FakeTarget>.fromOpaque(data).takeUnretainedValue().service,
        let value = service.property(String(cString: name), path: String(cString: path))
    else {
        g_set_error_literal(error, g_dbus_error_quark(), Int32(G_DBUS_ERROR_INVALID_ARGS.rawValue), "no such property")
        return nil
    }
    return value
}
