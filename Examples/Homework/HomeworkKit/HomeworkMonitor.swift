// Homework's DeviceActivityMonitor extension, as the WWDC21 talk writes it: shield the
// discouraged apps when the daily interval starts, and lift the shield when the
// encouraged apps have been used for the threshold, or when the interval ends.
import DeviceActivity
import Foundation
import ManagedSettings

extension DeviceActivityName {
    public static let daily = Self("daily")
}

extension DeviceActivityEvent.Name {
    public static let encouraged = Self("encouraged")
}

extension ManagedSettingsStore.Name {
    public static let homework = Self("homework")
}

/// A line in the owner's log (standard error is not buffered, unlike a pipe's standard output).
func say(_ line: String) {
    FileHandle.standardError.write(Data("Homework: \(line)\n".utf8))
}

open class HomeworkMonitor: DeviceActivityMonitor {
    let store = ManagedSettingsStore(named: .homework)

    public required init() {}

    open override func intervalDidStart(for activity: DeviceActivityName) {
        super.intervalDidStart(for: activity)
        let model: HomeworkModel?
        do {
            model = try HomeworkStorage.standard.model.load()
        } catch {
            // Nothing to shield with: say why rather than guess.
            say("cannot read what the guardian chose: \(error)")
            return
        }
        let applications = model?.selectionToDiscourage.applicationTokens ?? []
        store.shield.applications = applications.isEmpty ? nil : applications
        say("\(activity.rawValue) started, \(applications.count) app(s) discouraged")
    }

    open override func intervalDidEnd(for activity: DeviceActivityName) {
        super.intervalDidEnd(for: activity)
        store.shield.applications = nil
        say("\(activity.rawValue) ended, shield lifted")
    }

    open override func eventDidReachThreshold(_ event: DeviceActivityEvent.Name, activity: DeviceActivityName) {
        super.eventDidReachThreshold(event, activity: activity)
        store.shield.applications = nil
        say("\(event.rawValue) reached its threshold in \(activity.rawValue), shield lifted")
    }
}

/// What the app's setup screen does once the guardian has chosen.
public enum Homework {
    /// Saves `model` for the extensions and monitors the daily interval with the
    /// encouraged apps' threshold: the monitor extension does the rest.
    public static func start(_ model: HomeworkModel, storage: HomeworkStorage = .standard) throws {
        try storage.model.save(model)
        let schedule = DeviceActivitySchedule(intervalStart: model.intervalStart, intervalEnd: model.intervalEnd, repeats: true)
        let events: [DeviceActivityEvent.Name: DeviceActivityEvent] = [
            .encouraged: DeviceActivityEvent(applications: model.selectionToEncourage.applicationTokens, threshold: model.threshold)
        ]
        try DeviceActivityCenter().startMonitoring(.daily, during: schedule, events: events)
    }
}
