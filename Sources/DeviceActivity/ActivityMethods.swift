import Foundation
import ManagedSettings
import ScreenwardIPC

/// The requests `DeviceActivityCenter` and `DeviceActivityMonitor` send, and the
/// callbacks the owner pushes to an attached monitor.
@_spi(Screenward) public enum ActivityMethods {
    public static let start = ServiceMethod<ActivityRegistration, Empty>("activity.start")
    public static let stop = ServiceMethod<[DeviceActivityName], Empty>("activity.stop")
    public static let list = ServiceMethod<Empty, [ActivityRegistration]>("activity.list")
    /// From now on, this connection receives the app's monitor callbacks.
    public static let attachMonitor = ServiceMethod<Empty, Empty>("monitor.attach")
    /// The callbacks with these sequence numbers were handled.
    public static let acknowledge = ServiceMethod<[Int64], Empty>("monitor.ack")
    public static let callback = PushKind<MonitorCallbackMessage>("monitor.callback")
}

@_spi(Screenward) public struct ActivityRegistration: Codable, Hashable, Sendable {
    public var name: DeviceActivityName
    public var schedule: DeviceActivitySchedule
    public var events: [DeviceActivityEvent.Name: DeviceActivityEvent]

    public init(
        name: DeviceActivityName, schedule: DeviceActivitySchedule,
        events: [DeviceActivityEvent.Name: DeviceActivityEvent]
    ) {
        self.name = name
        self.schedule = schedule
        self.events = events
    }
}

/// One callback on its way to a monitor.
@_spi(Screenward) public struct MonitorCallbackMessage: Codable, Hashable, Sendable {
    public enum Kind: String, Codable, Sendable {
        case intervalWillStartWarning, intervalDidStart, eventWillReachThresholdWarning, eventDidReachThreshold,
            intervalWillEndWarning, intervalDidEnd
    }

    /// Acknowledged by number; the owner sends it again until it is.
    public var sequence: Int64
    public var activity: DeviceActivityName
    public var kind: Kind
    public var event: DeviceActivityEvent.Name?
    public var context: DeviceActivityCallbackContext

    public init(
        sequence: Int64, activity: DeviceActivityName, kind: Kind, event: DeviceActivityEvent.Name?,
        context: DeviceActivityCallbackContext
    ) {
        self.sequence = sequence
        self.activity = activity
        self.kind = kind
        self.event = event
        self.context = context
    }
}

/// What Apple's callbacks leave out: which interval a callback belongs to and when it
/// was due, so yesterday's late event cannot pass for today's.
public struct DeviceActivityCallbackContext: Codable, Hashable, Sendable {
    /// The interval the callback belongs to, with the instants it had when it began.
    public var interval: DateInterval
    /// When it was due (the schedule's instant, or the threshold crossing).
    public var scheduledAt: Date
    /// When the agent sent it.
    public var deliveredAt: Date
    /// Sent more than a second after it was due: after a restart, a suspend, or while
    /// waiting for the person to come back.
    public var isLate: Bool

    public init(interval: DateInterval, scheduledAt: Date, deliveredAt: Date, isLate: Bool) {
        self.interval = interval
        self.scheduledAt = scheduledAt
        self.deliveredAt = deliveredAt
        self.isLate = isLate
    }
}
