import Foundation

/// The per-device secret tokens are derived with: 32 random bytes in
/// `$SCREENWARD_HOME/device-secret`, mode 0600, created on first use.
///
/// Losing or replacing it changes every token (as revoking authorization does on
/// Apple's platforms), so it is never rewritten once it exists; a damaged file is an
/// error the person must resolve, not something to paper over silently.
public struct DeviceSecret: Sendable {
    public static let byteCount = 32
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) { self.bytes = bytes }

    public enum LoadError: Error, CustomStringConvertible {
        case damaged(path: String, byteCount: Int)
        case tooOpen(path: String, mode: Int)

        public var description: String {
            switch self {
            case .damaged(let path, let count):
                "the device secret \(path) holds \(count) bytes instead of \(DeviceSecret.byteCount); "
                    + "move it aside to start over (every application token will change)"
            case .tooOpen(let path, let mode):
                """
                the device secret \(path) has mode \(String(mode, radix: 8)); it must be readable by its owner \
                only (chmod 600)
                """
            }
        }
    }

    /// Reads the secret, creating it when the file does not exist yet.
    public static func loadOrCreate(at url: URL) throws -> DeviceSecret {
        let manager = FileManager.default
        if !manager.fileExists(atPath: url.path) {
            var generator = SystemRandomNumberGenerator()
            let fresh = (0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            // Write to a private temporary file and link it into place: two first runs
            // racing each other end with one secret, never a half-written one.
            let temporary = url.deletingLastPathComponent()
                .appendingPathComponent(".device-secret.\(ProcessInfo.processInfo.processIdentifier).tmp")
            guard
                manager.createFile(
                    atPath: temporary.path, contents: Data(fresh), attributes: [.posixPermissions: 0o600])
            else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary.path])
            }
            defer { try? manager.removeItem(at: temporary) }
            do {
                try manager.linkItem(at: temporary, to: url)
            } catch  where manager.fileExists(atPath: url.path) {
                // Another process won the race: use its secret.
            }
        }
        let attributes = try manager.attributesOfItem(atPath: url.path)
        if let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue, mode & 0o077 != 0 {
            throw LoadError.tooOpen(path: url.path, mode: mode)
        }
        let data = try Data(contentsOf: url)
        guard data.count == byteCount else { throw LoadError.damaged(path: url.path, byteCount: data.count) }
        return DeviceSecret(bytes: [UInt8](data))
    }
}
