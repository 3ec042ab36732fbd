import CGLib
import Foundation
import GLibRuntime

/// The agent's own connection to the session bus, where a compositor's code of the agent's (a
/// KWin script, GNOME Shell's extension) reaches it: a name of the agent's, one object with one
/// interface whose methods only the compositor's connection may call, and the calls and
/// signals the agent sends. Calls arrive on the default main context, the agent's loop.
public final class SessionBusEndpoint {
    public enum Problem: Error, CustomStringConvertible {
        case noSessionBus(String)
        case failed(String)

        public var description: String {
            switch self {
            case .noSessionBus(let why): "no session bus: \(why)"
            case .failed(let why): why
            }
        }
    }

    /// A method call from the compositor: its name and arguments. Returns false for arguments
    /// the method does not take (the caller gets InvalidArgs).
    public typealias Handler = (_ method: String, _ arguments: [VariantValue]) -> Bool

    let connection: OpaquePointer
    public let path: String
    public let interface: String
    private let nodeInfo: UnsafeMutablePointer<GDBusNodeInfo>
    private let vtable: UnsafeMutablePointer<GDBusInterfaceVTable>
    private var registration: guint = 0
    private var handler: Handler = { _, _ in false }
    /// The only sender taken: the compositor's unique name.
    private var allowedSender: String?
    private var closed = false
    private var subscriptions: [guint] = []
    private var signalHandlers: [String: ([VariantValue]) -> Void] = [:]

    /// Connects to the session bus; `introspection` declares `interface`, exported at `path`.
    public init(interface: String, path: String, introspection: String) throws {
        var error: UnsafeMutablePointer<GError>?
        guard let address = g_dbus_address_get_for_bus_sync(G_BUS_TYPE_SESSION, nil, &error) else {
            throw Problem.noSessionBus("\(DBusFailure(consuming: error))")
        }
        defer { g_free(address) }
        switch DBusBus.connect(address: String(cString: address)) {
        case .success(let connection): self.connection = connection
        case .failure(let failure): throw Problem.noSessionBus("\(failure)")
        }
        self.interface = interface
        self.path = path
        guard let info = g_dbus_node_info_new_for_xml(introspection, &error) else {
            DBusBus.close(connection)
            throw Problem.failed("\(DBusFailure(consuming: error))")
        }
        nodeInfo = info
        vtable = .allocate(capacity: 1)
        vtable.initialize(
            to: GDBusInterfaceVTable(
                method_call: endpointMethodCall, get_property: nil, set_property: nil,
                padding: (nil, nil, nil, nil, nil, nil, nil, nil)))
    }

    deinit { close() }

    /// Exports the object, taking calls from `sender` (a unique name) only, and owns `name`
    /// (nil: none, the compositor calls this connection's unique name).
    public func export(owning name: String?, acceptingFrom sender: String, _ handler: @escaping Handler) throws {
        self.handler = handler
        allowedSender = sender
        var error: UnsafeMutablePointer<GError>?
        guard let interfaceInfo = g_dbus_node_info_lookup_interface(nodeInfo, interface) else {
            throw Problem.failed("no interface \(interface) in the introspection")
        }
        registration = g_dbus_connection_register_object(
            connection, path, interfaceInfo, vtable, Unmanaged.passUnretained(self).toOpaque(), nil, &error)
        guard registration != 0 else { throw Problem.failed("\(DBusFailure(consuming: error))") }
        if let name { try own(name) }
    }

    /// The unique name owning `name` now, if any.
    public func owner(of name: String) -> String? {
        guard
            case .success(let reply) = DBusBus.call(
                connection, destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                interface: "org.freedesktop.DBus", method: "GetNameOwner", arguments: [g_variant_new_string(name)])
        else { return nil }
        return reply.child(0)?.string
    }

    /// Calls a method and waits for its reply.
    @discardableResult
    func call(destination: String, path: String, interface: String, method: String, _ arguments: [OpaquePointer?])
        throws -> VariantRef
    {
        switch DBusBus.call(
            connection, destination: destination, path: path, interface: interface, method: method,
            arguments: arguments)
        {
        case .success(let reply): return reply
        case .failure(let failure): throw Problem.failed("\(interface).\(method) on \(path): \(failure)")
        }
    }

    /// Emits a signal of the exported interface with one string.
    public func emit(_ signal: String, _ text: String) {
        var error: UnsafeMutablePointer<GError>?
        let arguments = VariantBuilder.tuple([g_variant_new_string(text)])
        if g_dbus_connection_emit_signal(connection, nil, path, interface, signal, arguments, &error) == 0 {
            g_clear_error(&error)
        }
    }

    /// Hears `member` signals of `interface` at `path` from `sender` (a name; the bus matches
    /// its owner at the time).
    func subscribe(
        sender: String, interface: String, member: String, path: String,
        _ handler: @escaping ([VariantValue]) -> Void
    ) {
        signalHandlers[member] = handler
        let id = g_dbus_connection_signal_subscribe(
            connection, sender, interface, member, path, nil, G_DBUS_SIGNAL_FLAGS_NONE, endpointSignal,
            Unmanaged.passUnretained(self).toOpaque(), nil)
        subscriptions.append(id)
    }

    fileprivate func received(signal member: String, parameters: VariantRef) {
        signalHandlers[member]?(parameters.children.map(VariantValue.init))
    }

    /// Unexports the object and leaves the bus.
    public func close() {
        guard !closed else { return }
        closed = true
        for id in subscriptions { g_dbus_connection_signal_unsubscribe(connection, id) }
        subscriptions = []
        if registration != 0 { g_dbus_connection_unregister_object(connection, registration) }
        registration = 0
        DBusBus.close(connection)
        g_dbus_node_info_unref(nodeInfo)
        vtable.deinitialize(count: 1)
        vtable.deallocate()
    }

    private func own(_ name: String) throws {
        let doNotQueue: UInt32 = 4
        switch DBusBus.call(
            connection, destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
            interface: "org.freedesktop.DBus", method: "RequestName",
            arguments: [g_variant_new_string(name), g_variant_new_uint32(doNotQueue)])
        {
        case .success(let reply) where reply.child(0)?.uint32 == 1: return
        case .success: throw Problem.failed("\(name) is owned already: another agent runs in this session")
        case .failure(let failure): throw Problem.failed("cannot own \(name): \(failure)")
        }
    }

    fileprivate func methodCall(sender: String?, method: String, parameters: VariantRef, invocation: OpaquePointer) {
        guard let sender, sender == allowedSender else {
            g_dbus_method_invocation_return_dbus_error(
                invocation, "org.freedesktop.DBus.Error.AccessDenied", "only the compositor calls \(interface)")
            return
        }
        let arguments = parameters.children.map(VariantValue.init)
        guard handler(method, arguments) else {
            g_dbus_method_invocation_return_dbus_error(
                invocation, "org.freedesktop.DBus.Error.InvalidArgs", "\(method) takes other arguments")
            return
        }
        g_dbus_method_invocation_return_value(invocation, nil)
    }
}

/// An argument of a call or signal the endpoint took: the interfaces here pass strings and
/// 32-bit integers (anything else is its type's name, as a string).
public enum VariantValue: Sendable, Equatable {
    case int32(Int32)
    case uint32(UInt32)
    case string(String)

    init(_ variant: VariantRef) {
        switch variant.typeString {
        case "i": self = .int32(g_variant_get_int32(variant.raw))
        case "u": self = .uint32(g_variant_get_uint32(variant.raw))
        default: self = .string(variant.string ?? variant.typeString)
        }
    }

    public var int32: Int32? { if case .int32(let value) = self { value } else { nil } }
    public var uint32: UInt32? { if case .uint32(let value) = self { value } else { nil } }
    public var string: String? { if case .string(let value) = self { value } else { nil } }
}

private let endpointMethodCall: GDBusInterfaceMethodCallFunc = {
    _, sender, _, _, method, parameters, invocation, data in
    guard let invocation, let data, let parameters, let method else { return }
    Unmanaged<SessionBusEndpoint>.fromOpaque(data).takeUnretainedValue().methodCall(
        sender: sender.map { String(cString: $0) }, method: String(cString: method),
        parameters: VariantRef(retaining: parameters), invocation: invocation)
}

private let endpointSignal: GDBusSignalCallback = { _, _, _, _, member, parameters, data in
    guard let data, let parameters, let member else { return }
    Unmanaged<SessionBusEndpoint>.fromOpaque(data).takeUnretainedValue().received(
        signal: String(cString: member), parameters: VariantRef(retaining: parameters))
}
