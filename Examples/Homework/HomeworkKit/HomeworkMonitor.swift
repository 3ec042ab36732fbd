// Homework's DeviceActivityMonitor extension, as the WWDC21 talk writes it: shield the
// discouraged apps when the daily interval starts, and lift the shield when the
// encouraged apps have been used for the threshold, or when the interval ends.
import DeviceActivity
import Foundation
import ManagedSettings

extension DeviceActivityName {
    public static let daily = Self("daily")
    /// The access a guardian gave: when it ends, the shields come back.
    public static let access = Self("access")
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
        guard activity == .daily else { return }
        try? HomeworkStorage.standard.done.mark(nil)
        shield(because: "\(activity.rawValue) started")
    }

    /// Shields what the guardian chose to discourage.
    func shield(because why: String) {
        let model: HomeworkModel?
        do {
            model = try HomeworkStorage.standard.model.load()
        } catch {
            // Nothing to shield with: say why rather than guess.
            say("cannot read what the guardian chose: \(error)")
            return
        }
        let applications = model?.selectionToDiscourage.applicationTokens ?? []
        let categories = model?.selectionToDiscourage.categoryTokens ?? []
        let websites = model?.selectionToDiscourage.webDomainTokens ?? []
        store.shield.applications = applications.isEmpty ? nil : applications
        // A whole category picked in the activity picker shields each of its apps, and its websites.
        store.shield.applicationCategories = categories.isEmpty ? nil : .specific(categories)
        store.shield.webDomainCategories = categories.isEmpty ? nil : .specific(categories)
        store.shield.webDomains = websites.isEmpty ? nil : websites
        say(
            """
            \(why), \(applications.count) app(s), \(categories.count) categories and \(websites.count) website(s) \
            discouraged
            """
        )
    }

    open override func intervalDidEnd(for activity: DeviceActivityName) {
        super.intervalDidEnd(for: activity)
        if activity == .access {
            // A guardian's access ended: the shields come back, unless the homework is done.
            guard !HomeworkStorage.standard.done.isDone(on: HomeworkDone.today()) else { return }
            return shield(because: "the access a guardian gave ended")
        }
        // The talk's day runs from 00:00 to 23:59: its end is a minute before the next day's
        // start, and homework not done then is not done at midnight either.
        if let model = try? HomeworkStorage.standard.model.load(), model.coversTheWholeDay {
            return say("\(activity.rawValue) ended; the next day's interval starts a minute later, shields kept")
        }
        liftShields()
        say("\(activity.rawValue) ended, shield lifted")
    }

    open override func eventDidReachThreshold(_ event: DeviceActivityEvent.Name, activity: DeviceActivityName) {
        super.eventDidReachThreshold(event, activity: activity)
        try? HomeworkStorage.standard.done.mark(HomeworkDone.today())
        liftShields()
        say("\(event.rawValue) reached its threshold in \(activity.rawValue), shield lifted")
    }
}

extension HomeworkMonitor {
    private func liftShields() {
        store.shield.applications = nil
        store.shield.applicationCategories = nil
        store.shield.webDomains = nil
        store.shield.webDomainCategories = nil
    }
}

/// What the app's setup screen does once the guardian has chosen.
public enum Homework {
    /// Saves `model` for the extensions and monitors the daily interval with the
    /// encouraged apps' threshold: the monitor extension does the rest.
    /// Shields again once `span` has passed (a guardian's access, given by the action delegate):
    /// a one-off interval whose end the monitor acts on.
    public static func shieldAgain(after span: Duration) throws {
        let calendar = Calendar.current
        let start = Date()
        let end = start.addingTimeInterval(TimeInterval(span.components.seconds))
        let parts: Set<Calendar.Component> = [.year, .month, .day, .hour, .minute, .second]
        try DeviceActivityCenter().startMonitoring(
            .access,
            during: DeviceActivitySchedule(
                intervalStart: calendar.dateComponents(parts, from: start),
                intervalEnd: calendar.dateComponents(parts, from: end), repeats: false))
    }

    public static func start(_ model: HomeworkModel, storage: HomeworkStorage = .standard) throws {
        try storage.model.save(model)
        let schedule = DeviceActivitySchedule(
            intervalStart: model.intervalStart, intervalEnd: model.intervalEnd, repeats: true)
        let events: [DeviceActivityEvent.Name: DeviceActivityEvent] = [
            .encouraged: DeviceActivityEvent(
                applications: model.selectionToEncourage.applicationTokens,
                categories: model.selectionToEncourage.categoryTokens,
                webDomains: model.selectionToEncourage.webDomainTokens,
                threshold: model.threshold)
        ]
        try DeviceActivityCenter().startMonitoring(.daily, during: schedule, events: events)
    }
}
