import Glibc

/// A lookup in the user or group database that failed: not "no such account" (that is
/// nil), but a database that could not be read (an NSS service down, a file unreadable).
public enum AccountLookupError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `function` (getpwnam_r, getgrgid_r, …) returned `errno` while looking up `query`.
    case systemError(function: String, query: String, errno: Int32)
    /// The entry did not fit in `bytes` of buffer; past that the entry is taken as corrupt.
    case entryTooLarge(function: String, query: String, bytes: Int)

    public var description: String {
        switch self {
        case .systemError(let function, let query, let code):
            "\(function) could not look up \(query): \(String(cString: strerror(code))) (errno \(code))"
        case .entryTooLarge(let function, let query, let bytes):
            "\(function) could not look up \(query): the entry does not fit in \(bytes) bytes"
        }
    }
}
