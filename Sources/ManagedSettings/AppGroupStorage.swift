import Foundation
import ScreenwardIPC

/// What an app and its extensions share: Screenward's stand-in for an app group
/// container (`UserDefaults(suiteName:)` on Apple's platforms).
///
/// On Apple's platforms an app and its extensions share a folder the user cannot
/// change. Here an app's extensions may run as another user than the app (in an account
/// a guardian manages, the daemon runs them as a system user of their own), and files in
/// a child's home are the child's to edit. So the values are kept by the state owner
/// (the agent, or the system daemon), per app and per person: the app and its
/// extensions read and write them through the API, and nobody else can.
///
/// Keys are up to 200 characters; a value is at most 256 KiB; an app keeps at most 100.
/// Needs the app's authorization, like the rest of the API.
public struct AppGroupStorage: Sendable {
    public static let shared = AppGroupStorage()

    public init() {}

    /// The value stored under `key`, or nil.
    public func data(forKey key: String) throws -> Data? {
        try ScreenwardApp.client.call(AppGroupMethods.read, AppGroupKey(key: key)).value
    }

    /// Stores `data` under `key`; nil removes it.
    public func set(_ data: Data?, forKey key: String) throws {
        _ = try ScreenwardApp.client.call(AppGroupMethods.write, AppGroupWrite(key: key, value: data))
    }

    public static let maximumKeyLength = 200
    public static let maximumValueBytes = 256 << 10
    public static let maximumKeys = 100
}

/// The requests `AppGroupStorage` sends to the state owner.
@_spi(Screenward) public enum AppGroupMethods {
    public static let read = ServiceMethod<AppGroupKey, AppGroupValue>("appgroup.read")
    public static let write = ServiceMethod<AppGroupWrite, Empty>("appgroup.write")
}

@_spi(Screenward) public struct AppGroupKey: Codable, Hashable, Sendable {
    public var key: String
    public init(key: String) { self.key = key }
}

@_spi(Screenward) public struct AppGroupValue: Codable, Hashable, Sendable {
    public var value: Data?
    public init(value: Data?) { self.value = value }
}

@_spi(Screenward) public struct AppGroupWrite: Codable, Hashable, Sendable {
    public var key: String
    public var value: Data?
    public init(key: String, value: Data?) {
        self.key = key
        self.value = value
    }
}
