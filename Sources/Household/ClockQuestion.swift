import Foundation

/// The database's clock minus this computer's, as one question to the database tells it:
/// asked now, answered with the database's time, taken as halfway through the question
/// (docs/household.md, "Clocks").
struct ClockQuestion {
    private let clock: @Sendable () -> Date
    private let askedAt: Double

    /// Asked now, on `clock` (this computer's).
    init(clock: @escaping @Sendable () -> Date = Date.init) {
        self.clock = clock
        askedAt = clock().timeIntervalSince1970
    }

    /// The skew, given the database's time in the answer.
    func skew(databaseNow: Double) -> Double {
        databaseNow - (askedAt + clock().timeIntervalSince1970) / 2
    }
}
