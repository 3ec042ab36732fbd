import ScreenwardCore

/// A button pressed on a shield is for the action delegate of the app whose store put the
/// shield up. It waits for the delegate's answer at most `patience`: one that does not answer
/// in time is given up on (its request cancelled) and nothing is done, since closing an app
/// its own delegate did not ask to close would be a surprise. Answers to requests given up
/// on, or never made, are ignored.
///
/// A policy as a value over the presenter's decisions: told what was asked and when, it says
/// what to carry out and which waits to give up; the presenter keeps one timer at `deadline`.
public struct ShieldButtonWaits<Decision> {
    /// How long a pressed button waits for its delegate.
    public static var patience: Duration { .seconds(10) }

    private var waiting: [ShieldRequestID: (decision: Decision, until: ContinuousClock.Instant)] = [:]

    public init() {}

    /// A button was pressed on the shield of `decision` and its delegate asked (`request`).
    public mutating func asked(_ request: ShieldRequestID, for decision: Decision, at now: ContinuousClock.Instant) {
        waiting[request] = (decision, now + Self.patience)
    }

    /// The delegate answered `request`: the decision to carry its response out for, or nil
    /// when nothing waits for that answer.
    public mutating func answered(_ request: ShieldRequestID) -> Decision? {
        waiting.removeValue(forKey: request)?.decision
    }

    /// The waits whose patience ran out by `now`, given up on (cancel their requests).
    public mutating func expired(at now: ContinuousClock.Instant) -> [(request: ShieldRequestID, decision: Decision)] {
        let expired = waiting.filter { $0.value.until <= now }
        for request in expired.keys { waiting[request] = nil }
        return expired.map { ($0.key, $0.value.decision) }.sorted { $0.request.rawValue < $1.request.rawValue }
    }

    /// When the next wait runs out (nil: nothing waits).
    public var deadline: ContinuousClock.Instant? { waiting.values.map(\.until).min() }
}
