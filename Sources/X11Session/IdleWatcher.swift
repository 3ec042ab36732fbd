import CX11
import ScreenwardCore
import SessionDisplay

/// Watches the server's IDLETIME counter (XSync) with two alarms: one fires when
/// the time since the last input crosses the threshold, one when input resets it.
/// Both transitions are events; between them the process sleeps.
public final class IdleWatcher {
    private let connection: XConnection
    public let threshold: Duration
    private var idleCounter: XSyncCounter = 0
    private var syncEventBase: Int32 = 0
    private var becameIdleAlarm: XSyncAlarm = 0
    private var returnedAlarm: XSyncAlarm = 0
    private var handler: (IdleTransition) -> Void = { _ in }
    public private(set) var isIdle = false

    public init(connection: XConnection, threshold: Duration) throws {
        self.connection = connection
        self.threshold = threshold
        var errorBase: Int32 = 0
        var major: Int32 = 0
        var minor: Int32 = 0
        guard XSyncQueryExtension(connection.display, &syncEventBase, &errorBase) != 0,
            XSyncInitialize(connection.display, &major, &minor) != 0
        else { throw X11Error.missingExtension("SYNC") }
        guard let counter = Self.findIdleCounter(connection.display) else {
            throw X11Error.missingExtension("SYNC IDLETIME counter")
        }
        idleCounter = counter
    }

    /// Starts watching; reports the current state through `handler` if idle already.
    public func start(_ handler: @escaping (IdleTransition) -> Void) {
        self.handler = handler
        let thresholdMilliseconds = Int64(threshold.milliseconds)
        becameIdleAlarm = createAlarm(test: XSyncPositiveTransition, value: thresholdMilliseconds)
        returnedAlarm = createAlarm(test: XSyncNegativeTransition, value: thresholdMilliseconds)
        connection.addEventHandler { [unowned self] event in self.handle(&event) }
        connection.flush()
        let idleNow = currentIdleTime()
        if idleNow >= threshold {
            isIdle = true
            handler(.becameIdle(lastInput: connection.timeSource.now().earlier(by: idleNow)))
        }
    }

    /// The time since the last input, as the server counts it now.
    public func currentIdleTime() -> Duration {
        var value = XSyncValue()
        guard XSyncQueryCounter(connection.display, idleCounter, &value) != 0 else { return .zero }
        return .milliseconds(sw_sync_value_int64(value))
    }

    private func handle(_ event: inout XEvent) {
        guard sw_event_type(&event) == syncEventBase + XSyncAlarmNotify else { return }
        let alarmEvent = withUnsafePointer(to: &event) {
            $0.withMemoryRebound(to: XSyncAlarmNotifyEvent.self, capacity: 1) { $0.pointee }
        }
        let alarm: Alarm
        switch alarmEvent.alarm {
        case becameIdleAlarm: alarm = .becameIdle
        case returnedAlarm: alarm = .returned
        default: return  // someone else's alarm
        }
        let counterValue = Duration.milliseconds(sw_sync_value_int64(alarmEvent.counter_value))
        let when = connection.reading(forServerTime: alarmEvent.time)
        guard let transition = Self.transition(alarm, counterValue: counterValue, at: when, isIdle: isIdle) else {
            return
        }
        if case .becameIdle = transition { isIdle = true } else { isIdle = false }
        handler(transition)
    }

    /// Which of the two alarms fired.
    public enum Alarm: Sendable { case becameIdle, returned }

    /// The arithmetic of an alarm: IDLETIME had reached `counterValue` when the
    /// server sent the event at `when`, so the last input came that long before it.
    /// An alarm that repeats the state already known reports nothing.
    public static func transition(_ alarm: Alarm, counterValue: Duration, at when: ClockReading, isIdle: Bool)
        -> IdleTransition?
    {
        switch alarm {
        case .becameIdle where !isIdle:
            return .becameIdle(lastInput: when.earlier(by: max(.zero, counterValue)))
        case .returned where isIdle:
            return .returned(at: when)
        default:
            return nil
        }
    }

    private func createAlarm(test: XSyncTestType, value: Int64) -> XSyncAlarm {
        var attributes = XSyncAlarmAttributes()
        attributes.trigger.counter = idleCounter
        attributes.trigger.value_type = XSyncAbsolute
        attributes.trigger.test_type = test
        attributes.trigger.wait_value = sw_sync_value(value)
        attributes.delta = sw_sync_value(0)
        attributes.events = 1
        let mask = UInt(
            XSyncCACounter | XSyncCAValueType | XSyncCATestType | XSyncCAValue | XSyncCADelta | XSyncCAEvents)
        return XSyncCreateAlarm(connection.display, mask, &attributes)
    }

    private static func findIdleCounter(_ display: OpaquePointer) -> XSyncCounter? {
        var count: Int32 = 0
        guard let list = XSyncListSystemCounters(display, &count) else { return nil }
        defer { XSyncFreeSystemCounterList(list) }
        for index in 0..<Int(count) where String(cString: list[index].name) == "IDLETIME" {
            return list[index].counter
        }
        return nil
    }
}
