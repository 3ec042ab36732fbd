import ScreenwardBasics

/// What has the focus, and when that changed.
public struct FocusObservation: Sendable {
    public enum Cause: Sendable {
        case initial, activeWindowChanged, windowPropertiesChanged, windowDestroyed, inputFocusChanged
    }
    /// The focused top-level window; nil when nothing has the focus.
    public var window: WindowID?
    /// Its facts; nil with no window.
    public var facts: WindowFacts?
    public var time: ClockReading
    public var cause: Cause
    /// The display server's stamp of the change (milliseconds), when the event had one.
    public var serverTime: ServerTime?

    public init(
        window: WindowID?, facts: WindowFacts?, time: ClockReading, cause: Cause, serverTime: ServerTime? = nil
    ) {
        self.window = window
        self.facts = facts
        self.time = time
        self.cause = cause
        self.serverTime = serverTime
    }
}
