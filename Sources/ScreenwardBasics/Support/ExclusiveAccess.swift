import Synchronization

/// A value that lives on its owner's loop and is handed to APIs that ask for `Sendable`
/// (a socket's handler, an in-process transport) because other users of theirs have
/// threads. It is never locked: every use runs on the loop, one after another. What it
/// checks is that this holds: a use that begins while another is under way (from a
/// second thread, or from inside the first) stops the process rather than race, as
/// Swift's own exclusivity checks do.
///
/// Unlike `LoopBound` it does not tie the value to one thread, so a test whose body
/// moves between threads at each `await` may still use it, one step at a time.
public final class ExclusiveAccess<Value>: @unchecked Sendable {
    private var value: Value
    private let inUse = Atomic<Bool>(false)
    private let what: StaticString

    /// - Parameter what: named in the message when the check fails.
    public init(_ value: Value, what: StaticString) {
        self.value = value
        self.what = what
    }

    public func callAsFunction<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        let entered = inUse.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged
        precondition(entered, "\(what) was used while in use (from another thread, or from inside itself)")
        defer { inUse.store(false, ordering: .releasing) }
        return try body(&value)
    }
}
