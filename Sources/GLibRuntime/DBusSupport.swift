import CGLib

// Small helpers around GDBus and GVariant shared by LogindWatcher, LogindSessions and
// the test double FakeLogindService (in ScreenwardTesting, hence `package`). GVariant's
// variadic constructors (g_variant_new, g_variant_get) do not import into Swift; these
// use the typed functions instead, and every reader checks the value's type first, so
// a peer that sends the wrong types gets nil back, not a crash (g_variant_get_* abort
// on a type mismatch).

/// A D-Bus call or connection that failed: the remote error name (if the peer sent
/// one) and GLib's message without the "GDBus.Error:…" prefix.
package struct DBusFailure: Error, CustomStringConvertible {
    package var name: String?
    package var message: String

    /// Takes ownership of `error` and frees it.
    package init(consuming error: UnsafeMutablePointer<GError>?) {
        guard let error else {
            name = nil
            message = "unknown error"
            return
        }
        defer { g_error_free(error) }
        if let remote = g_dbus_error_get_remote_error(error) {
            name = String(cString: remote)
            g_free(remote)
            _ = g_dbus_error_strip_remote_error(error)
        } else {
            name = nil
        }
        message = error.pointee.message.map { String(cString: $0) } ?? "unknown error"
    }

    /// Nobody owns the name the call went to (and the bus cannot start anyone).
    package var isNoSuchService: Bool {
        name == "org.freedesktop.DBus.Error.ServiceUnknown" || name == "org.freedesktop.DBus.Error.NameHasNoOwner"
    }

    package var description: String { name.map { "\($0): \(message)" } ?? message }
}

/// One strong reference to a GVariant, released with the Swift object.
package final class VariantRef {
    package let raw: OpaquePointer

    /// Adopts a reference the caller owns (a call's reply, g_variant_get_child_value…).
    package init(adopting raw: OpaquePointer) { self.raw = raw }

    /// Takes a new reference to a variant someone else owns (a signal's parameters).
    package init(retaining raw: OpaquePointer) { self.raw = g_variant_ref_sink(raw) }

    deinit { g_variant_unref(raw) }

    package var typeString: String { String(cString: g_variant_get_type_string(raw)) }

    /// The `index`th child of a tuple, array or dictionary entry, or nil.
    package func child(_ index: Int) -> VariantRef? {
        guard g_variant_is_container(raw) != 0, index >= 0, index < Int(g_variant_n_children(raw)),
            let child = g_variant_get_child_value(raw, gsize(index))
        else { return nil }
        return VariantRef(adopting: child)
    }

    package var children: [VariantRef] {
        guard g_variant_is_container(raw) != 0 else { return [] }
        return (0..<Int(g_variant_n_children(raw))).compactMap(child)
    }

    /// The text of a string, object path or signature; nil for any other type.
    package var string: String? {
        guard ["s", "o", "g"].contains(typeString), let text = g_variant_get_string(raw, nil) else { return nil }
        return String(cString: text)
    }

    package var bool: Bool? { typeString == "b" ? g_variant_get_boolean(raw) != 0 : nil }

    package var uint32: UInt32? { typeString == "u" ? g_variant_get_uint32(raw) : nil }
    package var double: Double? { typeString == "d" ? g_variant_get_double(raw) : nil }

    /// The value inside a variant ("v"), or nil.
    package var unboxed: VariantRef? {
        guard typeString == "v", let inner = g_variant_get_variant(raw) else { return nil }
        return VariantRef(adopting: inner)
    }

    /// The value under `key` in an `a{sv}` dictionary (unboxed), or nil.
    package func value(forKey key: String) -> VariantRef? {
        guard typeString == "a{sv}", let value = g_variant_lookup_value(raw, key, nil) else { return nil }
        return VariantRef(adopting: value)
    }

    /// The strings of an `as` array; nil for any other type.
    package var strings: [String]? {
        guard typeString == "as" else { return nil }
        return children.compactMap(\.string)
    }
}

/// Builders: each returns a floating GVariant that the call or signal it is passed
/// to takes over.
package enum VariantBuilder {
    package static func tuple(_ items: [OpaquePointer?]) -> OpaquePointer {
        items.withUnsafeBufferPointer { g_variant_new_tuple($0.baseAddress, gsize($0.count)) }
    }

    /// An `a{sv}` dictionary.
    package static func dictionary(_ entries: [(String, OpaquePointer)]) -> OpaquePointer {
        guard !entries.isEmpty else {
            let type = g_variant_type_new("{sv}")
            defer { g_variant_type_free(type) }
            return g_variant_new_array(type, nil, 0)
        }
        let items: [OpaquePointer?] = entries.map { key, value in
            g_variant_new_dict_entry(g_variant_new_string(key), g_variant_new_variant(value))
        }
        return items.withUnsafeBufferPointer { g_variant_new_array(nil, $0.baseAddress, gsize($0.count)) }
    }

    /// An `as` array.
    package static func strings(_ values: [String]) -> OpaquePointer {
        guard !values.isEmpty else {
            let type = g_variant_type_new("s")
            defer { g_variant_type_free(type) }
            return g_variant_new_array(type, nil, 0)
        }
        let items: [OpaquePointer?] = values.map { g_variant_new_string($0) }
        return items.withUnsafeBufferPointer { g_variant_new_array(nil, $0.baseAddress, gsize($0.count)) }
    }
}

package enum DBusBus {
    /// Opens a private connection to the bus at `address` (not GLib's shared
    /// singleton, whose `exit-on-close` would raise SIGTERM in this process when
    /// the bus goes away, and which outlives the caller's interest in it).
    package static func connect(address: String) -> Result<OpaquePointer, DBusFailure> {
        var error: UnsafeMutablePointer<GError>?
        let flags = GDBusConnectionFlags(
            rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue
                | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
        guard let connection = g_dbus_connection_new_for_address_sync(address, flags, nil, nil, &error) else {
            return .failure(DBusFailure(consuming: error))
        }
        return .success(connection)
    }

    /// The system bus address GLib would use: $DBUS_SYSTEM_BUS_ADDRESS, else the
    /// standard socket.
    package static func systemBusAddress() -> Result<String, DBusFailure> {
        var error: UnsafeMutablePointer<GError>?
        guard let address = g_dbus_address_get_for_bus_sync(G_BUS_TYPE_SYSTEM, nil, &error) else {
            return .failure(DBusFailure(consuming: error))
        }
        defer { g_free(address) }
        return .success(String(cString: address))
    }

    /// Calls a method and waits for the reply (`timeout` in milliseconds). The
    /// caller checks the reply's type.
    package static func call(
        _ connection: OpaquePointer, destination: String, path: String, interface: String, method: String,
        arguments: [OpaquePointer?], timeout: Int32 = 5000
    ) -> Result<VariantRef, DBusFailure> {
        var error: UnsafeMutablePointer<GError>?
        let reply = g_dbus_connection_call_sync(
            connection, destination, path, interface, method, VariantBuilder.tuple(arguments), nil,
            G_DBUS_CALL_FLAGS_NONE, timeout, nil, &error)
        guard let reply else { return .failure(DBusFailure(consuming: error)) }
        return .success(VariantRef(adopting: reply))
    }

    /// Closes and releases a connection this process opened.
    package static func close(_ connection: OpaquePointer) {
        g_dbus_connection_close_sync(connection, nil, nil)
        g_object_unref(UnsafeMutableRawPointer(connection))
    }
}
