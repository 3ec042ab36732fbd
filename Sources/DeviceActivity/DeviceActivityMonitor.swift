import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardIPC
import Synchronization

/// Subclass and override the callbacks you need; `main()` runs the monitor.
///
/// Each callback comes exactly once per interval. The `context:` variants also say
/// which interval the callback belongs to and whether it comes late; by default they
/// call the plain ones, so override either.
///
/// Callbacks run one at a time, in order, on a queue of their own (not the main thread).
open class DeviceActivityMonitor {
    public required init() {}

    open func intervalDidStart(for activity: DeviceActivityName) {}
    open func intervalDidEnd(for activity: DeviceActivityName) {}
    open func eventDidReachThreshold(_ event: DeviceActivityEvent.Name, activity: DeviceActivityName) {}
    open func intervalWillStartWarning(for activity: DeviceActivityName) {}
    open func intervalWillEndWarning(for activity: DeviceActivityName) {}
    open func eventWillReachThresholdWarning(_ event: DeviceActivityEvent.Name, activity: DeviceActivityName) {}

    open func intervalDidStart(for activity: DeviceActivityName, context: DeviceActivityCallbackContext) {
        intervalDidStart(for: activity)
    }
    open func intervalDidEnd(for activity: DeviceActivityName, context: DeviceActivityCallbackContext) {
        intervalDidEnd(for: activity)
    }
    open func eventDidReachThreshold(
        _ event: DeviceActivityEvent.Name, activity: DeviceActivityName, context: DeviceActivityCallbackContext
    ) {
        eventDidReachThreshold(event, activity: activity)
    }
    open func intervalWillStartWarning(for activity: DeviceActivityName, context: DeviceActivityCallbackContext) {
        intervalWillStartWarning(for: activity)
    }
    open func intervalWillEndWarning(for activity: DeviceActivityName, context: DeviceActivityCallbackContext) {
        intervalWillEndWarning(for: activity)
    }
    open func eventWillReachThresholdWarning(
        _ event: DeviceActivityEvent.Name, activity: DeviceActivityName, context: DeviceActivityCallbackContext
    ) {
        eventWillReachThresholdWarning(event, activity: activity)
    }

    /// Runs an instance of this class as the app's monitor until the process ends:
    /// it attaches to the agent, receives every callback due (including those that
    /// came due while no monitor was running, marked late), and reattaches after the
    /// agent restarts. Exits with a message when the app is not authorised or no agent runs.
    /// Returns Void, not Never: `@main` accepts only `() -> Void` mains. It never returns.
    open class func main() {
        ScreenwardApp.runExtension("the monitor") { try MonitorAttachment.attach(Self(), client: ScreenwardApp.client) }
    }

    /// Calls the override for `message`.
    func deliver(_ message: MonitorCallbackMessage) {
        let (activity, context) = (message.activity, message.context)
        switch message.kind {
        case .intervalWillStartWarning: intervalWillStartWarning(for: activity, context: context)
        case .intervalDidStart: intervalDidStart(for: activity, context: context)
        case .intervalWillEndWarning: intervalWillEndWarning(for: activity, context: context)
        case .intervalDidEnd: intervalDidEnd(for: activity, context: context)
        case .eventWillReachThresholdWarning:
            if let event = message.event { eventWillReachThresholdWarning(event, activity: activity, context: context) }
        case .eventDidReachThreshold:
            if let event = message.event { eventDidReachThreshold(event, activity: activity, context: context) }
        }
    }
}

/// A monitor attached to a client's connection: callbacks in, acknowledgements out.
///
/// This is the one place callbacks enter a monitor, whether the owner is the agent
/// behind a socket or an owner in the same process.
@_spi(Screenward) public final class MonitorAttachment: Sendable {
    private let monitor: Mutex<DeviceActivityMonitor>
    private let handled = Mutex<Set<Int64>>([])
    private let client: ServiceClient

    private init(monitor: sending DeviceActivityMonitor, client: ServiceClient) {
        self.monitor = Mutex(monitor)
        self.client = client
    }

    @discardableResult
    public static func attach(_ monitor: sending DeviceActivityMonitor, client: ServiceClient) throws
        -> MonitorAttachment
    {
        let attachment = MonitorAttachment(monitor: monitor, client: client)
        client.transport.setPushReceiver { [attachment] frame in attachment.received(frame) }
        do {
            _ = try client.call(ActivityMethods.attachMonitor, Empty())
        } catch let error as ServiceError where error.code == .unauthorized {
            throw DeviceActivityCenter.MonitoringError.unauthorized
        }
        try client.resendOnReconnect(ActivityMethods.attachMonitor, Empty())
        return attachment
    }

    private func received(_ frame: Data) {
        ScreenwardApp.working { handle(frame) }
    }

    private func handle(_ frame: Data) {
        guard let message = try? ActivityMethods.callback.body(from: frame) else {
            ScreenwardApp.report("ignored a message from the agent that is not a monitor callback")
            return
        }
        // A callback sent again (its acknowledgement was lost with a connection) runs once.
        let isNew = handled.withLock { handled in
            // Sequence numbers only grow: the oldest ones can no longer come back.
            if handled.count >= 4096, let oldest = handled.min() { handled.remove(oldest) }
            return handled.insert(message.sequence).inserted
        }
        if isNew { monitor.withLock { $0.deliver(message) } }
        do {
            _ = try client.call(ActivityMethods.acknowledge, [message.sequence])
        } catch {
            ScreenwardApp.report(
                """
                could not acknowledge callback \(message.sequence): \(error) (the agent sends it again; it will \
                not run twice)
                """
            )
        }
    }
}
