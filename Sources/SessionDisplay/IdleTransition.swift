import ScreenwardBasics

/// A change between present and idle, with the moment it really happened.
public enum IdleTransition: Sendable {
    /// No input for the threshold; `lastInput` is when the last input came.
    case becameIdle(lastInput: ClockReading)
    /// Input came back at `at`.
    case returned(at: ClockReading)
}
