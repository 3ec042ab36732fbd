import CGLib
import Foundation

/// Desktop notifications (`org.freedesktop.Notifications.Notify`) on a session bus,
/// sent from a queue of their own so a slow or hung notification server never holds
/// up the caller.
public final class DesktopNotifications: Sendable {
    public enum Outcome: Sendable, Equatable {
        /// The server showed it under this id.
        case shown(UInt32)
        /// No notification server runs, or there is no session bus: the reason.
        case noService(String)
        case failed(String)
    }

    /// The bus address; nil: the session bus of the environment.
    private let address: String?
    private let applicationName: String
    private let queue = DispatchQueue(label: "screenward.notifications")

    public init(sessionBusAddress: String? = nil, applicationName: String = "Screenward") {
        address = sessionBusAddress
        self.applicationName = applicationName
    }

    /// Sends one notification; `completion` runs on the notifications' queue.
    public func send(
        summary: String, body: String, icon: String = "appointment-soon",
        completion: @escaping @Sendable (Outcome) -> Void
    ) {
        let address = address
        let applicationName = applicationName
        queue.async {
            completion(
                Self.notify(
                    address: address, applicationName: applicationName, summary: summary, body: body, icon: icon))
        }
    }

    /// Sends and waits (for tools and tests).
    public func sendAndWait(summary: String, body: String) -> Outcome {
        queue.sync {
            Self.notify(
                address: address, applicationName: applicationName, summary: summary, body: body,
                icon: "appointment-soon")
        }
    }

    private static func notify(address: String?, applicationName: String, summary: String, body: String, icon: String)
        -> Outcome
    {
        guard let address = address ?? sessionBusAddress() else {
            return .noService(
                """
                there is no session bus \
                (DBUS_SESSION_BUS_ADDRESS is not set and /run/user/\(getuid())/bus does not exist)
                """
            )
        }
        let connection: OpaquePointer
        switch DBusBus.connect(address: address) {
        case .success(let opened): connection = opened
        case .failure(let failure): return .noService("cannot connect to the session bus at \(address): \(failure)")
        }
        defer { DBusBus.close(connection) }
        let arguments: [OpaquePointer?] = [
            g_variant_new_string(applicationName), g_variant_new_uint32(0), g_variant_new_string(icon),
            g_variant_new_string(summary),
            g_variant_new_string(body), VariantBuilder.strings([]), VariantBuilder.dictionary([]),
            g_variant_new_int32(-1),
        ]
        let result = DBusBus.call(
            connection, destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
            interface: "org.freedesktop.Notifications", method: "Notify", arguments: arguments, timeout: 3000)
        switch result {
        case .success(let reply):
            guard let id = reply.child(0)?.uint32 else {
                return .failed("the notification server answered Notify with \(reply.typeString), not (u)")
            }
            return .shown(id)
        case .failure(let failure) where failure.isNoSuchService:
            return .noService("no notification server runs on the session bus (\(failure))")
        case .failure(let failure):
            return .failed("\(failure)")
        }
    }

    /// $DBUS_SESSION_BUS_ADDRESS, else the user's bus socket if it exists. Never
    /// GLib's own lookup, which may try to launch a bus through X11.
    static func sessionBusAddress() -> String? {
        if let address = ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty {
            return address
        }
        let socket = "/run/user/\(getuid())/bus"
        return FileManager.default.fileExists(atPath: socket) ? "unix:path=\(socket)" : nil
    }
}
