@_spi(Screenward) import DeviceActivity
import Foundation
@_spi(Screenward) import ManagedSettings
@_spi(Screenward) import ScreenTimePolicy
import ScreenwardBasics
import ScreenwardIPC
import UsageLedger

/// What a client's request would loosen, for an owner that lets a guardian decide (the
/// system daemon, for a managed user's own programs).
extension ScreenTimeService {
    /// The loosening `frame` asks for, said as what it would do ("lift shield.applications of
    /// the store homework"); nil when it restricts at least as much as before, is no change,
    /// or is refused anyway (the request then fails with its own error).
    ///
    /// A store may tighten freely. Its app's schedules and the data it shares with its
    /// extensions are the app's policy: its monitor lifts shields when an interval it was
    /// given ends, and reads what it shields from that data. So a schedule started, changed
    /// or stopped, and a shared value changed, each count as loosening.
    public func loosening(of frame: Data) -> Phrase? {
        guard let head = try? FrameHead.decode(from: frame), let method = head.method, let client = head.client,
            let tokens = try? tokens(client)
        else { return nil }
        switch method {
        case StoreMethods.change.name:
            guard let change = try? StoreMethods.change.request(from: frame).body,
                let old = try? ledger.storeContents(client: client, name: change.name)
            else { return nil }
            var new = old
            for setting in change.settings {
                guard let setting = try? tokens.toDevice(setting) else { return nil }
                new.apply(setting)
            }
            let loosened = StoreStrictness.loosened(from: old, to: new)
            guard !loosened.isEmpty else { return nil }
            return Phrase(
                "lift {settings} of the settings store {store}", context: "loosening",
                ["settings": loosened.joined(separator: ", "), "store": change.name])
        case StoreMethods.clear.name:
            guard let store = try? StoreMethods.clear.request(from: frame).body,
                let old = try? ledger.storeContents(client: client, name: store.name), !old.isEmpty
            else { return nil }
            return Phrase("clear the settings store {store}", context: "loosening", ["store": store.name])
        case ActivityMethods.start.name:
            guard let registration = try? ActivityMethods.start.request(from: frame).body,
                let events = try? registration.events.mapValues(tokens.toDevice)
            else { return nil }
            let same = engine.activities.contains { (activity: MonitoredActivity) -> Bool in
                guard activity.owner == client, activity.name == registration.name else { return false }
                return activity.schedule == registration.schedule && activity.events == events
            }
            return same
                ? nil
                : Phrase(
                    "start or change its schedule {activity}", context: "loosening",
                    ["activity": registration.name.rawValue])
        case ActivityMethods.stop.name:
            guard let names = try? ActivityMethods.stop.request(from: frame).body else { return nil }
            let mine = engine.activities.filter { $0.owner == client }.map(\.name)
            let stopped = names.isEmpty ? mine : names.filter(mine.contains)
            guard !stopped.isEmpty else { return nil }
            return Phrase(
                "stop its schedules {activities}", context: "loosening",
                ["activities": stopped.map(\.rawValue).sorted().joined(separator: ", ")])
        case AppGroupMethods.write.name:
            // A first value too: what an extension makes of a key it finds is the app's to say.
            guard let write = try? AppGroupMethods.write.request(from: frame).body,
                case .success(let old) = Result(catching: { try ledger.appGroupValue(client: client, key: write.key) }),
                old != write.value
            else { return nil }
            return Phrase(
                "change the value {key} it shares with its extensions", context: "loosening", ["key": write.key])
        default:
            return nil
        }
    }
}
