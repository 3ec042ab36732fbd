import Foundation

/// Slows down guessing of a guardian's one-time code (once, their password) from a
/// child's session. Per key (the guardian's account name): three wrong answers in a row
/// are free, the third one starts a 30 s wait, and each further wrong one doubles it
/// (60 s, 120 s, …) up to an hour, so a guardian who mistypes is never locked out for long
/// while a child guessing gets a few dozen tries a day. A right answer clears the key.
///
/// Plain value: the owner (the daemon) keeps it behind its own lock or actor and passes
/// the time in, so tests control the clock. Counts are not persisted: they live as long
/// as the daemon, which a child cannot restart. Keys should be accounts already known to
/// be guardians, which keeps the table as small as the list of guardians.
public struct PasswordAttemptLimiter: Sendable {
    public enum Decision: Equatable, Sendable {
        case allowed
        /// No attempt may be checked before `until`.
        case wait(until: Date)
    }

    /// Wrong passwords allowed in a row before the first wait.
    public let freeFailures: Int
    /// The wait after `freeFailures` wrong passwords in a row.
    public let firstWait: TimeInterval
    /// The longest wait, however many failures came before.
    public let maximumWait: TimeInterval

    private struct Record: Sendable {
        var consecutiveFailures = 0
        var blockedUntil: Date?
    }

    private var records: [String: Record] = [:]

    public init(freeFailures: Int = 3, firstWait: TimeInterval = 30, maximumWait: TimeInterval = 3600) {
        // At least one attempt must be free, and negative times mean nothing: settings out
        // of range are clamped rather than trapped on.
        self.freeFailures = max(1, freeFailures)
        self.firstWait = max(0, firstWait)
        self.maximumWait = max(self.firstWait, maximumWait)
    }

    /// Whether an attempt for `key` may be checked at `now`.
    public func check(_ key: String, now: Date) -> Decision {
        guard let until = records[key]?.blockedUntil, now < until else { return .allowed }
        return .wait(until: until)
    }

    /// Records a wrong password for `key` at `now` and returns what the next attempt faces.
    /// A failure recorded during a wait (a caller that did not check) still counts.
    @discardableResult
    public mutating func recordFailure(_ key: String, now: Date) -> Decision {
        var record = records[key] ?? Record()
        record.consecutiveFailures += 1
        if let wait = wait(afterFailures: record.consecutiveFailures) {
            record.blockedUntil = now.addingTimeInterval(wait)
        }
        records[key] = record
        return check(key, now: now)
    }

    /// Records a right password: the key starts afresh.
    public mutating func recordSuccess(_ key: String) {
        records[key] = nil
    }

    /// Wrong passwords in a row recorded for `key`.
    public func consecutiveFailures(_ key: String) -> Int {
        records[key]?.consecutiveFailures ?? 0
    }

    /// The wait that the `failures`-th wrong password in a row starts, if any.
    public func wait(afterFailures failures: Int) -> TimeInterval? {
        guard failures >= freeFailures else { return nil }
        // Doubled step by step, stopping at the cap, so a huge count neither overflows nor
        // loops long (a zero first wait stays zero: no loop at all).
        guard firstWait > 0 else { return 0 }
        var wait = firstWait
        for _ in 0..<(failures - freeFailures) {
            wait *= 2
            if wait >= maximumWait { return maximumWait }
        }
        return min(wait, maximumWait)
    }
}
