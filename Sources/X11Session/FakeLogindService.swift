import CX11
import Foundation

/// TEST SUPPORT ONLY: plays systemd-logind on a private bus, for
/// `screenward-fake-logind` and the integration tests of `LogindWatcher`. Never
/// point it at the real system bus.
///
/// It owns org.freedesktop.login1, answers the manager's `GetSessionByPID` and
/// `GetSession` with one session, serves that session's `Id` and `LockedHint`
/// properties, and emits on request what logind emits: PropertiesChanged for
/// LockedHint, the session's `Lock`/`Unlock`, and the manager's `PrepareForSleep`.
/// Method calls arrive on the thread-default main context of the thread that
/// created it.
public final class FakeLogindService {
    public struct Options: Sendable {
        /// The session's id (its object path is derived from it as logind does).
        public var sessionID = "1"
        /// The initial value of LockedHint.
        public var lockedHint = false
        /// Whether GetSessionByPID answers; if not, it fails as logind does for a
        /// process outside any session, and only GetSession finds the session.
        public var answersGetSessionByPID = true
        /// GetSessionByPID answers with a string instead of an object path, and
        /// LockedHint is a string: for testing that clients check types.
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
    public let sessionPath: String
    public private(set) var lockedHint: Bool
    /// The lookups clients made, e.g. "GetSessionByPID 1234", "GetSession 1".
    public private(set) var lookups: [String] = []

    private let connection: OpaquePointer
    private let nodeInfo: UnsafeMutablePointer<GDBusNodeInfo>
    private let vtable: UnsafeMutablePointer<GDBusInterfaceVTable>
    private var registrations: [guint] = []

    /// Connects to the bus at `address`, registers the objects and takes the name.
    public init(address: String, options: Options = Options()) throws {
        self.options = options
        sessionPath = "/org/freedesktop/login1/session/" + Self.escapePathElement(options.sessionID)
        lockedHint = options.lockedHint

        switch DBusBus.connect(address: address) {
        case .success(let opened): connection = opened
        case .failure(let failure): throw FakeLogindError("cannot connect to the bus at \(address): \(failure)")
        }
        var error: UnsafeMutablePointer<GError>?
        guard let info = g_dbus_node_info_new_for_xml(Self.introspection(malformed: options.malformedReplies), &error)
        else {
            DBusBus.close(connection)
            throw FakeLogindError("bad introspection XML: \(DBusFailure(consuming: error))")
        }
        nodeInfo = info
        vtable = .allocate(capacity: 1)
        vtable.initialize(
            to: GDBusInterfaceVTable(
                method_call: fakeMethodCall, get_property: fakeGetProperty, set_property: nil,
                padding: (nil, nil, nil, nil, nil, nil, nil, nil)))

        do {
            try register(path: LogindWatcher.managerPath, interface: LogindWatcher.managerInterface)
            try register(path: sessionPath, interface: LogindWatcher.sessionInterface)
            try requestName()
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    // MARK: Emitting

    /// Changes LockedHint and announces it with PropertiesChanged.
    public func setLocked(_ locked: Bool, announcing announcement: Announcement = .value) {
        lockedHint = locked
        let changed = announcement == .value ? [("LockedHint", g_variant_new_boolean(locked ? 1 : 0)!)] : []
        let invalidated = announcement == .invalidation ? ["LockedHint"] : []
        emit(
            path: sessionPath, interface: LogindWatcher.propertiesInterface, signal: "PropertiesChanged",
            arguments: [
                g_variant_new_string(LogindWatcher.sessionInterface), VariantBuilder.dictionary(changed),
                VariantBuilder.strings(invalidated),
            ])
    }

    /// Emits the session's `Lock` (true) or `Unlock` (false) signal, as
    /// `loginctl lock-session` makes logind do; LockedHint is left alone.
    public func emitLockSignal(_ lock: Bool) {
        emit(path: sessionPath, interface: LogindWatcher.sessionInterface, signal: lock ? "Lock" : "Unlock", arguments: [])
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

    fileprivate func methodCall(_ method: String, parameters: VariantRef, invocation: OpaquePointer) {
        switch method {
        case "GetSessionByPID":
            let pid = parameters.child(0)?.uint32 ?? 0
            lookups.append("GetSessionByPID \(pid)")
            if !options.answersGetSessionByPID {
                g_dbus_method_invocation_return_dbus_error(
                    invocation, "org.freedesktop.login1.NoSessionForPID", "PID \(pid) does not belong to any known session")
            } else if options.malformedReplies {
                g_dbus_method_invocation_return_value(invocation, VariantBuilder.tuple([g_variant_new_string(sessionPath)]))
            } else {
                g_dbus_method_invocation_return_value(
                    invocation, VariantBuilder.tuple([g_variant_new_object_path(sessionPath)]))
            }
        case "GetSession":
            let id = parameters.child(0)?.string ?? ""
            lookups.append("GetSession \(id)")
            if id == options.sessionID {
                g_dbus_method_invocation_return_value(
                    invocation, VariantBuilder.tuple([g_variant_new_object_path(sessionPath)]))
            } else {
                g_dbus_method_invocation_return_dbus_error(
                    invocation, "org.freedesktop.login1.NoSuchSession", "No session '\(id)' known")
            }
        default:
            g_dbus_method_invocation_return_dbus_error(
                invocation, "org.freedesktop.DBus.Error.UnknownMethod", "Unknown method \(method)")
        }
    }

    fileprivate func property(_ name: String) -> OpaquePointer? {
        switch name {
        case "Id": g_variant_new_string(options.sessionID)
        case "LockedHint":
            options.malformedReplies
                ? g_variant_new_string(lockedHint ? "yes" : "no") : g_variant_new_boolean(lockedHint ? 1 : 0)
        default: nil
        }
    }

    // MARK: Plumbing

    private func emit(path: String, interface: String, signal: String, arguments: [OpaquePointer?]) {
        var error: UnsafeMutablePointer<GError>?
        if g_dbus_connection_emit_signal(
            connection, nil, path, interface, signal, VariantBuilder.tuple(arguments), &error) == 0
        {
            FileHandle.standardError.write(Data("fake logind: cannot emit \(signal): \(DBusFailure(consuming: error))\n".utf8))
        }
    }

    private func register(path: String, interface: String) throws {
        guard let interfaceInfo = g_dbus_node_info_lookup_interface(nodeInfo, interface) else {
            throw FakeLogindError("no interface \(interface) in the introspection XML")
        }
        var error: UnsafeMutablePointer<GError>?
        let target = Unmanaged.passRetained(FakeTarget(self)).toOpaque()
        let id = g_dbus_connection_register_object(
            connection, path, interfaceInfo, vtable, target, releaseFakeTarget, &error)
        guard id != 0 else { throw FakeLogindError("cannot register \(path): \(DBusFailure(consuming: error))") }
        registrations.append(id)
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
        for id in registrations { g_dbus_connection_unregister_object(connection, id) }
        registrations = []
        DBusBus.close(connection)
        g_dbus_node_info_unref(nodeInfo)
        vtable.deinitialize(count: 1)
        vtable.deallocate()
    }

    /// logind's object path element: bytes outside [A-Za-z0-9], and a leading
    /// digit, become _xx (sd_bus_path_encode).
    static func escapePathElement(_ text: String) -> String {
        guard !text.isEmpty else { return "_" }
        var result = ""
        for (index, byte) in text.utf8.enumerated() {
            let isLetter = (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122)
            let isDigit = byte >= 48 && byte <= 57
            if isLetter || (isDigit && index > 0) {
                result.unicodeScalars.append(UnicodeScalar(byte))
            } else {
                result += "_" + String(byte, radix: 16).leftPadded(to: 2)
            }
        }
        return result
    }

    private static func introspection(malformed: Bool) -> String {
        """
        <node>
          <interface name="org.freedesktop.login1.Manager">
            <method name="GetSession">
              <arg name="session_id" type="s" direction="in"/>
              <arg name="object_path" type="o" direction="out"/>
            </method>
            <method name="GetSessionByPID">
              <arg name="pid" type="u" direction="in"/>
              <arg name="object_path" type="\(malformed ? "s" : "o")" direction="out"/>
            </method>
            <signal name="PrepareForSleep"><arg name="start" type="b"/></signal>
          </interface>
          <interface name="org.freedesktop.login1.Session">
            <property name="Id" type="s" access="read"/>
            <property name="LockedHint" type="\(malformed ? "s" : "b")" access="read"/>
            <signal name="Lock"/>
            <signal name="Unlock"/>
          </interface>
        </node>
        """
    }
}

public struct FakeLogindError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

private final class FakeTarget {
    weak var service: FakeLogindService?
    init(_ service: FakeLogindService) { self.service = service }
}

private let releaseFakeTarget: GDestroyNotify = { data in
    guard let data else { return }
    Unmanaged<FakeTarget>.fromOpaque(data).release()
}

private let fakeMethodCall: GDBusInterfaceMethodCallFunc = { _, _, _, _, method, parameters, invocation, data in
    guard let invocation else { return }
    guard let data, let method, let parameters,
        let service = Unmanaged<FakeTarget>.fromOpaque(data).takeUnretainedValue().service
    else {
        g_dbus_method_invocation_return_dbus_error(invocation, "org.freedesktop.DBus.Error.Failed", "gone")
        return
    }
    service.methodCall(String(cString: method), parameters: VariantRef(retaining: parameters), invocation: invocation)
}

private let fakeGetProperty: GDBusInterfaceGetPropertyFunc = { _, _, _, _, name, error, data in
    // GDBus asserts that an error is set whenever this returns NULL.
    guard let data, let name, let service = Unmanaged<FakeTarget>.fromOpaque(data).takeUnretainedValue().service,
        let value = service.property(String(cString: name))
    else {
        g_set_error_literal(error, g_dbus_error_quark(), Int32(G_DBUS_ERROR_INVALID_ARGS.rawValue), "no such property")
        return nil
    }
    return value
}
