import DeviceActivity
import Foundation

/// Where the engine learns how much an event's applications, categories and web
/// domains have been used. The agent answers from memory (`LiveUsage`); tests
/// answer from a script.
///
/// Usage counts focused time while the person is present, so it is
/// non-decreasing in `to` and grows by at most one second per second: the engine's
/// search for a past crossing and its prediction of the next one rely on both, and
/// so does its skipping of questions whose answer cannot have changed enough. For
/// that, usage of a span already answered for must not grow afterwards by more than
/// `UsageMark.margin` (two seconds): focus credited a moment late is fine, history
/// loaded after the engine started asking is not.
public protocol EventUsageSource {
    /// Focused seconds of the event's members within `[from, to)`.
    func focusedSeconds(of event: DeviceActivityEvent, from: Date, to: Date) -> TimeInterval

    /// The rate the event's usage grows at `now`: 1 while one of its members has the
    /// focus (and the person is present), else 0. The engine's predictions hold until
    /// the focus or presence changes; the caller asks for the next deadline again then.
    func accrualRate(of event: DeviceActivityEvent, at now: Date) -> Double

    /// One event's usage. The engine asks for it once per event it runs and then
    /// asks it on every focus change, so a source that can work out an event's
    /// members in advance answers faster. By default it asks the two methods above.
    func usage(of event: DeviceActivityEvent) -> any EventUsage
}

/// One event's usage, with the same promises as `EventUsageSource`.
public protocol EventUsage {
    func focusedSeconds(from: Date, to: Date) -> TimeInterval
    func accrualRate(at now: Date) -> Double
    /// When the growth `accrualRate(at: now)` tells of begins: `now`, or a moment later
    /// when the focus that grows the usage is placed after `now` (an X event is placed in
    /// the middle of the millisecond the server stamped, and may be read before that).
    func accruesFrom(_ now: Date) -> Date
}

extension EventUsage {
    public func accruesFrom(_ now: Date) -> Date { now }
}

extension EventUsageSource {
    public func usage(of event: DeviceActivityEvent) -> any EventUsage {
        AskingEventUsage(source: self, event: event)
    }
}

/// An event's usage that asks its source each time.
private struct AskingEventUsage<Source: EventUsageSource>: EventUsage {
    let source: Source
    let event: DeviceActivityEvent

    func focusedSeconds(from: Date, to: Date) -> TimeInterval {
        source.focusedSeconds(of: event, from: from, to: to)
    }

    func accrualRate(at now: Date) -> Double {
        source.accrualRate(of: event, at: now)
    }
}
