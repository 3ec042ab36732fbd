import Glibc

/// The one place that calls the reentrant getpw*_r/getgr*_r functions: a buffer sized by
/// `sysconf` (the size the C library suggests), doubled on ERANGE up to a limit, retried on
/// EINTR. The entry's strings point into the buffer, so `convert` copies them out before
/// the buffer goes away.
enum ReentrantLookup {
    /// Past this, an entry is not a real one (a group of some hundred thousand members fits).
    static let maximumBufferSize = 16 << 20

    static func find<Entry, Value>(
        function: String, query: String, sizeHint: Int32, empty: Entry,
        call: (
            UnsafeMutablePointer<Entry>, UnsafeMutablePointer<CChar>, Int,
            UnsafeMutablePointer<UnsafeMutablePointer<Entry>?>
        ) -> Int32,
        convert: (Entry) -> Value
    ) throws(AccountLookupError) -> Value? {
        let suggested = sysconf(sizeHint)
        // -1 means "no fixed size": start at what glibc's own getpwnam uses.
        var size = suggested > 0 ? suggested : 1024
        var entry = empty
        while true {
            var buffer = [CChar](repeating: 0, count: size)
            var found: UnsafeMutablePointer<Entry>?
            var value: Value?
            // `found` points at `entry` and into `buffer`: read it while both pointers live.
            let status = withUnsafeMutablePointer(to: &entry) { entryPointer in
                buffer.withUnsafeMutableBufferPointer { bytes in
                    let status = call(entryPointer, bytes.baseAddress!, bytes.count, &found)
                    if status == 0, let found { value = convert(found.pointee) }
                    return status
                }
            }
            switch status {
            case 0:
                // Zero with no entry is "no such user or group".
                return value
            case EINTR:
                continue
            case ERANGE:
                guard size < maximumBufferSize else {
                    throw .entryTooLarge(function: function, query: query, bytes: size)
                }
                size *= 2
            default:
                throw .systemError(function: function, query: query, errno: status)
            }
        }
    }

    /// A C string field, or "" when the C library left it null.
    static func string(_ pointer: UnsafeMutablePointer<CChar>?) -> String {
        pointer.map { String(cString: $0) } ?? ""
    }

    /// Whether `name` can be passed to C as it is: a NUL would cut it short and look up
    /// another account ("root\0x" is "root" to getpwnam_r).
    static func isPlausibleName(_ name: String) -> Bool {
        !name.isEmpty && !name.utf8.contains(0)
    }
}
