// The Worklog sample from "What's new in Screen Time API" (WWDC22), as the talk
// shows it. Only the app's SwiftUI scene is left out; `BarkDatabase` is the app's
// own storage, reduced here to the tokens the monitor reads. (`public` is added
// because the sample lives in a library here, shared by the demo program and tests.)

// MONITOR EXTENSION: Handle Social category at start/end of interval
import DeviceActivity
import ManagedSettings

public class WorklogMonitor: DeviceActivityMonitor {
    let database = BarkDatabase()

    override public func intervalDidStart(for activity: DeviceActivityName) {
        super.intervalDidStart(for: activity)
        let socialStore = ManagedSettingsStore(named: .social)
        socialStore.clearAllSettings()
    }

    override public func intervalDidEnd(for activity: DeviceActivityName) {
        super.intervalDidEnd(for: activity)
        let socialStore = ManagedSettingsStore(named: .social)
        let socialCategory = database.socialCategoryToken
        socialStore.shield.applicationCategories = .specific([socialCategory])
        socialStore.shield.webDomainCategories = .specific([socialCategory])
    }
}
