import GLibRuntime
import ScreenwardCore
import X11Session

extension UsageAccountant {
    /// What logind says about the session (locked, asleep), as the accountant counts it:
    /// the same for a person's agent and a managed session's.
    func take(_ event: SessionEvent, at time: ClockReading) {
        switch event {
        case .locked(let locked): lockChanged(isLocked: locked, at: time)
        case .sleeping(let asleep): sleepChanged(isAsleep: asleep, at: time)
        }
    }
}
