import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardIPC

/// Starts and stops the monitoring of activities: schedules, and usage thresholds
/// within them. The agent runs them and calls this app's `DeviceActivityMonitor`.
public final class DeviceActivityCenter: Sendable {
    public init() {}

    /// Monitors `activity` during `schedule`, replacing an earlier registration of the
    /// same name. Registered inside a running interval, `intervalDidStart` comes at once.
    public func startMonitoring(
        _ activity: DeviceActivityName, during schedule: DeviceActivitySchedule,
        events: [DeviceActivityEvent.Name: DeviceActivityEvent] = [:]
    ) throws {
        if let problem = schedule.monitoringProblem(events: events, now: Date(), calendar: .current) { throw problem }
        try call(ActivityMethods.start, ActivityRegistration(name: activity, schedule: schedule, events: events))
    }

    /// Stops monitoring the activities named (all of this app's when empty). A running
    /// interval gets its `intervalDidEnd`.
    public func stopMonitoring(_ activities: [DeviceActivityName] = []) {
        do {
            try call(ActivityMethods.stop, activities)
        } catch {
            ScreenwardApp.report(
                """
                could not stop monitoring \
                \(activities.isEmpty ? "activities" : activities.map(\.rawValue).joined(separator: ", ")): \(error)
                """
            )
        }
    }

    /// The activities this app monitors.
    public var activities: [DeviceActivityName] { registrations().map(\.name) }

    public func schedule(for activity: DeviceActivityName) -> DeviceActivitySchedule? {
        registrations().first { $0.name == activity }?.schedule
    }

    public func events(for activity: DeviceActivityName) -> [DeviceActivityEvent.Name: DeviceActivityEvent] {
        registrations().first { $0.name == activity }?.events ?? [:]
    }

    private func registrations() -> [ActivityRegistration] {
        do {
            return try call(ActivityMethods.list, Empty())
        } catch {
            ScreenwardApp.report("could not list the monitored activities: \(error)")
            return []
        }
    }

    /// A call whose refusals come back as Apple's `MonitoringError` where one fits.
    @discardableResult
    private func call<Request, Reply>(_ method: ServiceMethod<Request, Reply>, _ request: Request) throws -> Reply {
        do {
            return try ScreenwardApp.client.call(method, request)
        } catch let error as ServiceError {
            switch error.code {
            case .unauthorized: throw MonitoringError.unauthorized
            case .limitExceeded: throw MonitoringError.excessiveActivities
            case .intervalTooShort: throw MonitoringError.intervalTooShort
            case .intervalTooLong: throw MonitoringError.intervalTooLong
            case .invalidDateComponents: throw MonitoringError.invalidDateComponents
            default: throw error
            }
        }
    }
}
