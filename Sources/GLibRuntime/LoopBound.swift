import Foundation

/// A value used only on the thread that made it (a daemon's or agent's loop), handed to
/// APIs that ask for `Sendable` because other callers of theirs use threads. Using it
/// on another thread stops the process rather than race.
public final class LoopBound<Value>: @unchecked Sendable {
    private let value: Value
    private let thread = pthread_self()

    public init(_ value: Value) { self.value = value }

    public func callAsFunction<Result>(_ body: (Value) throws -> Result) rethrows -> Result {
        precondition(pthread_equal(thread, pthread_self()) != 0, "a loop-bound value was used off its loop")
        return try body(value)
    }
}
