import CGLib
import Foundation

/// What logind says about this session.
public enum SessionEvent: Sendable, Equatable {
    /// The screen was locked (true) or unlocked (false).
    case locked(Bool)
    /// The machine is about to suspend or hibernate (true), or has resumed (false).
    case sleeping(Bool)
}

/// Why the session cannot be watched through logind.
public enum LogindError: Error, CustomStringConvertible, Equatable {
    /// No system bus at `address` (or it refused us).
    case noSystemBus(address: String, reason: String)
    /// The system bus is there but nobody owns org.freedesktop.login1.
    case noLogind(reason: String)
    /// logind knows no session for this process, by pid or by $XDG_SESSION_ID.
    case noSession(pid: Int32, xdgSessionID: String?, reason: String)
    /// logind answered `method` with a value of the wrong type.
    case malformedReply(method: String, type: String)
    /// The session's LockedHint property could not be read.
    case lockedHintUnavailable(sessionPath: String, reason: String)

    public var description: String {
        switch self {
        case .noSystemBus(let address, let reason):
            "cannot connect to the system bus at \(address): \(reason)"
        case .noLogind(let reason):
            "nobody owns org.freedesktop.login1 on the system bus (\(reason))"
        case .noSession(let pid, let id?, let reason):
            "logind knows no session for pid \(pid) nor for XDG_SESSION_ID=\(id): \(reason)"
        case .noSession(let pid, nil, let reason):
            "logind knows no session for pid \(pid) (\(reason)) and XDG_SESSION_ID is not set"
        case .malformedReply(let method, let type):
            "logind answered \(method) with a value of type \(type), not the expected one"
        case .lockedHintUnavailable(let path, let reason):
            "cannot read LockedHint of the logind session \(path): \(reason)"
        }
    }
}

/// Follows screen lock and suspend through systemd-logind on the system bus, as
/// xss-lock does: the session's `LockedHint` property (and its `Lock`/`Unlock`
/// signals, which some lockers rely on) and the manager's `PrepareForSleep`.
///
/// It uses its own connection to the system bus; GLib takes the address from
/// $DBUS_SYSTEM_BUS_ADDRESS when set (tests point it at a private bus). Signals are
/// delivered on the thread-default main context of the thread that calls `start`:
/// call it on the thread that runs the agent's `MainLoop` (the default context).
/// Events are reported only when the state changes; the lock state is reported
/// once at start. Values of the wrong type are ignored, never read.
public final class LogindWatcher {
    public static let busName = "org.freedesktop.login1"
    public static let managerPath = "/org/freedesktop/login1"
    package static let managerInterface = "org.freedesktop.login1.Manager"
    package static let sessionInterface = "org.freedesktop.login1.Session"
    package static let propertiesInterface = "org.freedesktop.DBus.Properties"

    /// The object path of this process's session, once started.
    public private(set) var sessionPath: String?
    /// The latest state reported (nil before `start` or for sleep before any signal).
    public private(set) var isLocked: Bool?
    public private(set) var isSleeping: Bool?

    private var connection: OpaquePointer?
    private var subscriptions: [guint] = []
    private var handler: (SessionEvent) -> Void = { _ in }

    public init() {}

    deinit { stop() }

    /// Connects, finds this process's session, subscribes to its signals and reports
    /// the current lock state through `handler` before returning.
    ///
    /// - Throws: `LogindError` when there is no system bus, no logind, no session
    ///   for this process, or logind's answers have the wrong types.
    public func start(_ handler: @escaping (SessionEvent) -> Void) throws {
        stop()
        let address: String
        switch DBusBus.systemBusAddress() {
        case .success(let found): address = found
        case .failure(let failure): throw LogindError.noSystemBus(address: "(unknown)", reason: failure.message)
        }
        let connection: OpaquePointer
        switch DBusBus.connect(address: address) {
        case .success(let opened): connection = opened
        case .failure(let failure): throw LogindError.noSystemBus(address: address, reason: failure.message)
        }
        let path: String
        do {
            path = try Self.findSession(on: connection)
        } catch {
            DBusBus.close(connection)
            throw error
        }
        self.connection = connection
        sessionPath = path
        self.handler = handler
        // Subscribe before reading, so that no change can fall between the two.
        subscribe(sessionPath: path)
        do {
            report(locked: try Self.readLockedHint(on: connection, sessionPath: path))
        } catch {
            stop()
            throw error
        }
    }

    /// Unsubscribes and closes the connection; no event is reported afterwards.
    public func stop() {
        guard let connection else {
            sessionPath = nil
            return
        }
        for id in subscriptions { g_dbus_connection_signal_unsubscribe(connection, id) }
        subscriptions = []
        DBusBus.close(connection)
        self.connection = nil
        sessionPath = nil
        isLocked = nil
        isSleeping = nil
        handler = { _ in }
    }

    // MARK: Finding the session

    private static func findSession(on connection: OpaquePointer) throws -> String {
        let pid = getpid()
        let byPID = DBusBus.call(
            connection, destination: busName, path: managerPath, interface: managerInterface,
            method: "GetSessionByPID", arguments: [g_variant_new_uint32(UInt32(pid))])
        let failure: DBusFailure
        switch byPID {
        case .success(let reply):
            guard reply.typeString == "(o)", let path = reply.child(0)?.string else {
                throw LogindError.malformedReply(method: "GetSessionByPID", type: reply.typeString)
            }
            return path
        case .failure(let problem):
            if problem.isNoSuchService { throw LogindError.noLogind(reason: problem.description) }
            failure = problem
        }
        // Not in a session by pid (started by a user service manager, for example):
        // the session the environment names.
        let id = getenv("XDG_SESSION_ID").map { String(cString: $0) } ?? ""
        guard !id.isEmpty else {
            throw LogindError.noSession(pid: pid, xdgSessionID: nil, reason: failure.description)
        }
        switch DBusBus.call(
            connection, destination: busName, path: managerPath, interface: managerInterface,
            method: "GetSession", arguments: [g_variant_new_string(id)])
        {
        case .success(let reply):
            guard reply.typeString == "(o)", let path = reply.child(0)?.string else {
                throw LogindError.malformedReply(method: "GetSession", type: reply.typeString)
            }
            return path
        case .failure(let problem):
            throw LogindError.noSession(pid: pid, xdgSessionID: id, reason: problem.description)
        }
    }

    private static func readLockedHint(on connection: OpaquePointer, sessionPath: String) throws -> Bool {
        switch DBusBus.call(
            connection, destination: busName, path: sessionPath, interface: propertiesInterface, method: "Get",
            arguments: [g_variant_new_string(sessionInterface), g_variant_new_string("LockedHint")])
        {
        case .success(let reply):
            guard reply.typeString == "(v)", let value = reply.child(0)?.unboxed, let locked = value.bool else {
                let type = reply.child(0)?.unboxed?.typeString ?? reply.typeString
                throw LogindError.malformedReply(method: "Get(LockedHint)", type: type)
            }
            return locked
        case .failure(let problem):
            throw LogindError.lockedHintUnavailable(sessionPath: sessionPath, reason: problem.description)
        }
    }

    // MARK: Signals

    private func subscribe(sessionPath: String) {
        add(
            interface: Self.propertiesInterface, member: "PropertiesChanged", path: sessionPath,
            arg0: Self.sessionInterface)
        add(interface: Self.sessionInterface, member: "Lock", path: sessionPath)
        add(interface: Self.sessionInterface, member: "Unlock", path: sessionPath)
        add(interface: Self.managerInterface, member: "PrepareForSleep", path: Self.managerPath)
    }

    private func add(interface: String, member: String, path: String, arg0: String? = nil) {
        guard let connection else { return }
        let target = Unmanaged.passRetained(SignalTarget(self)).toOpaque()
        let id = g_dbus_connection_signal_subscribe(
            connection, Self.busName, interface, member, path, arg0, G_DBUS_SIGNAL_FLAGS_NONE,
            signalReceived, target, releaseSignalTarget)
        subscriptions.append(id)
    }

    fileprivate func received(member: String, parameters: VariantRef) {
        switch member {
        case "PropertiesChanged":
            // (sa{sv}as): interface, changed values, invalidated names.
            guard parameters.typeString == "(sa{sv}as)",
                parameters.child(0)?.string == Self.sessionInterface,
                let changed = parameters.child(1)
            else { return }
            if let value = changed.value(forKey: "LockedHint") {
                if let locked = value.bool { report(locked: locked) }
            } else if parameters.child(2)?.strings?.contains("LockedHint") == true {
                refreshLockedHint()
            }
        case "Lock":
            report(locked: true)
        case "Unlock":
            report(locked: false)
        case "PrepareForSleep":
            guard parameters.typeString == "(b)", let sleeping = parameters.child(0)?.bool else { return }
            report(sleeping: sleeping)
        default:
            break
        }
    }

    /// A PropertiesChanged that only invalidates LockedHint: ask for the value
    /// without blocking the loop.
    private func refreshLockedHint() {
        guard let connection, let sessionPath else { return }
        let target = Unmanaged.passRetained(SignalTarget(self)).toOpaque()
        g_dbus_connection_call(
            connection, Self.busName, sessionPath, Self.propertiesInterface, "Get",
            VariantBuilder.tuple([g_variant_new_string(Self.sessionInterface), g_variant_new_string("LockedHint")]),
            nil, G_DBUS_CALL_FLAGS_NONE, 5000, nil, lockedHintReplied, target)
    }

    fileprivate func lockedHintArrived(_ reply: VariantRef) {
        guard reply.typeString == "(v)", let locked = reply.child(0)?.unboxed?.bool else { return }
        report(locked: locked)
    }

    private func report(locked: Bool) {
        guard connection != nil, isLocked != locked else { return }
        isLocked = locked
        handler(.locked(locked))
    }

    private func report(sleeping: Bool) {
        guard connection != nil, isSleeping != sleeping else { return }
        isSleeping = sleeping
        handler(.sleeping(sleeping))
    }
}

/// What a subscription's user data points to; weak, so a subscription never keeps
/// the watcher alive.
private final class SignalTarget {
    weak var watcher: LogindWatcher?
    init(_ watcher: LogindWatcher) { self.watcher = watcher }
}

private let signalReceived: GDBusSignalCallback = { _, _, _, _, member, parameters, data in
    guard let data, let member, let parameters else { return }
    let target = Unmanaged<SignalTarget>.fromOpaque(data).takeUnretainedValue()
    target.watcher?.received(member: String(cString: member), parameters: VariantRef(retaining: parameters))
}

private let releaseSignalTarget: GDestroyNotify = { data in
    guard let data else { return }
    Unmanaged<SignalTarget>.fromOpaque(data).release()
}

private let lockedHintReplied: GAsyncReadyCallback = { source, result, data in
    guard let data else { return }
    let target = Unmanaged<SignalTarget>.fromOpaque(data).takeRetainedValue()
    var error: UnsafeMutablePointer<GError>?
    guard let source, let reply = g_dbus_connection_call_finish(OpaquePointer(source), result, &error) else {
        _ = DBusFailure(consuming: error)  // the next change will tell
        return
    }
    target.watcher?.lockedHintArrived(VariantRef(adopting: reply))
}
