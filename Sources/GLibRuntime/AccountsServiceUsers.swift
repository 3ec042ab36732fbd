import CGLib

/// A user's default desktop session as AccountsService keeps it (org.freedesktop.Accounts on
/// the system bus), which LightDM's and GDM's greeters preselect for them. One call a change:
/// the bus connection is opened for it and closed after.
public enum AccountsServiceUsers {
    public enum Failure: Error, CustomStringConvertible, Equatable {
        /// Nobody owns org.freedesktop.Accounts (AccountsService is not installed or not running).
        case notRunning(String)
        /// It knows no such user, or refused or failed the call.
        case failed(method: String, reason: String)

        public var description: String {
            switch self {
            case .notRunning(let reason): "AccountsService is not running (\(reason))"
            case .failed(let method, let reason): "AccountsService's \(method) failed: \(reason)"
            }
        }
    }

    private static let busName = "org.freedesktop.Accounts"

    /// Sets `user`'s default session to the X11 session `session` (a file name in
    /// /usr/share/xsessions without `.desktop`): `XSession` (LightDM's), `Session` and
    /// `SessionType` (GDM's), where this AccountsService has them.
    public static func setX11Session(_ session: String, of user: String) throws(Failure) {
        let address: String
        switch DBusBus.systemBusAddress() {
        case .success(let found): address = found
        case .failure(let failure): throw .notRunning(failure.description)
        }
        let connection: OpaquePointer
        switch DBusBus.connect(address: address) {
        case .success(let opened): connection = opened
        case .failure(let failure): throw .notRunning(failure.description)
        }
        defer { DBusBus.close(connection) }
        let path: String
        switch DBusBus.call(
            connection, destination: busName, path: "/org/freedesktop/Accounts", interface: busName,
            method: "FindUserByName", arguments: [g_variant_new_string(user)])
        {
        case .success(let reply):
            guard reply.typeString == "(o)", let found = reply.child(0)?.string else {
                throw .failed(method: "FindUserByName", reason: "an answer of type \(reply.typeString)")
            }
            path = found
        case .failure(let failure):
            if failure.isNoSuchService { throw .notRunning(failure.description) }
            throw .failed(method: "FindUserByName", reason: failure.description)
        }
        // SetSession and SetSessionType came with AccountsService 0.6.50; XSession is older.
        for (method, value, required) in [
            ("SetXSession", session, true), ("SetSession", session, false), ("SetSessionType", "x11", false),
        ] {
            let result = DBusBus.call(
                connection, destination: busName, path: path, interface: "\(busName).User", method: method,
                arguments: [g_variant_new_string(value)])
            if case .failure(let failure) = result,
                required || failure.name != "org.freedesktop.DBus.Error.UnknownMethod"
            {
                throw .failed(method: method, reason: failure.description)
            }
        }
    }
}
