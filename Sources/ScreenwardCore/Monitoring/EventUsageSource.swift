import DeviceActivity
import Foundation

/// Where the engine learns how much an event's applications, categories and web
/// domains have been used. The agent answers from the ledger and the live focus;
/// tests answer from a script.
///
/// Usage counts focused time while the person is present, so it is
/// non-decreasing in `to` and grows by at most one second per second: the engine's
/// search for a past crossing and its prediction of the next one rely on both.
public protocol EventUsageSource {
    /// Focused seconds of the event's members within `[from, to)`.
    func focusedSeconds(of event: DeviceActivityEvent, from: Date, to: Date) -> TimeInterval

    /// The rate the event's usage grows at `now`: 1 while one of its members has the
    /// focus (and the person is present), else 0. The engine's predictions hold until
    /// the focus or presence changes; the caller asks for the next deadline again then.
    func accrualRate(of event: DeviceActivityEvent, at now: Date) -> Double
}
