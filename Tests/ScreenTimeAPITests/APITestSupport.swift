@_spi(Screenward) import DeviceActivity
import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardCore
import ScreenwardIPC
import XCTest

/// One callback as a monitor received it.
struct Heard: Sendable, Equatable {
    var kind: String
    var activity: String
    var event: String?
    var context: DeviceActivityCallbackContext

    /// `kind[(event)] activity [interval] at due`, times in the world's zone ("11-23 10:00").
    var line: String {
        let what = event.map { "\(kind)(\($0))" } ?? kind
        let interval = "\(InProcessWorld.text(context.interval.start))–\(InProcessWorld.text(context.interval.end))"
        return
            """
            \(what) \(activity) [\(interval)] at \
            \(InProcessWorld.text(context.scheduledAt))\(context.isLate ? " late" : "")
            """
    }
}

/// A monitor that writes down every callback, with its context.
final class RecordingMonitor: DeviceActivityMonitor {
    private var log: Recorder<Heard>?

    required init() {}

    init(log: Recorder<Heard>) {
        self.log = log
    }

    private func note(
        _ kind: String, _ activity: DeviceActivityName, _ context: DeviceActivityCallbackContext,
        event: DeviceActivityEvent.Name? = nil
    ) {
        log?.append(Heard(kind: kind, activity: activity.rawValue, event: event?.rawValue, context: context))
    }

    override func intervalWillStartWarning(for activity: DeviceActivityName, context: DeviceActivityCallbackContext) {
        note("intervalWillStartWarning", activity, context)
    }
    override func intervalDidStart(for activity: DeviceActivityName, context: DeviceActivityCallbackContext) {
        note("intervalDidStart", activity, context)
    }
    override func eventWillReachThresholdWarning(
        _ event: DeviceActivityEvent.Name, activity: DeviceActivityName, context: DeviceActivityCallbackContext
    ) {
        note("eventWillReachThresholdWarning", activity, context, event: event)
    }
    override func eventDidReachThreshold(
        _ event: DeviceActivityEvent.Name, activity: DeviceActivityName, context: DeviceActivityCallbackContext
    ) {
        note("eventDidReachThreshold", activity, context, event: event)
    }
    override func intervalWillEndWarning(for activity: DeviceActivityName, context: DeviceActivityCallbackContext) {
        note("intervalWillEndWarning", activity, context)
    }
    override func intervalDidEnd(for activity: DeviceActivityName, context: DeviceActivityCallbackContext) {
        note("intervalDidEnd", activity, context)
    }
}

/// A monitor process of one app: its own connection to the owner.
struct MonitorProcess {
    let heard: Recorder<Heard>
    let transport: DirectTransport

    var lines: [String] { heard.all.map(\.line) }

    /// The process exits.
    func exit() { transport.disconnect() }
}

extension InProcessWorld {
    /// Starts `bundleID`'s monitor on a connection of its own, as `DeviceActivityMonitor.main()` would.
    func startMonitor(_ bundleID: String) throws -> MonitorProcess {
        let transport = DirectTransport(handler: host)
        let heard = Recorder<Heard>()
        try MonitorAttachment.attach(
            RecordingMonitor(log: heard), client: ServiceClient(transport: transport, bundleIdentifier: bundleID))
        return MonitorProcess(heard: heard, transport: transport)
    }

    /// "11-23 10:00", with seconds when there are any, in the world's zone (to the
    /// nearest second: tests check exact instants separately).
    static func text(_ exact: Date) -> String {
        let date = Date(timeIntervalSinceReferenceDate: exact.timeIntervalSinceReferenceDate.rounded())
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        let seconds = calendar.component(.second, from: date)
        formatter.dateFormat = seconds == 0 ? "MM-dd HH:mm" : "MM-dd HH:mm:ss"
        return formatter.string(from: date)
    }

    /// Whether the domain is shielded now, and by which stores.
    func shieldingStores(ofWebDomain domain: String) -> [String] {
        shields.reasons(forWebDomain: directory.minter.webDomainToken(forDomain: domain), categories: [])
            .map { "\($0.owner)/\($0.store)" }.sorted()
    }

    /// A request sent as is by the current client, skipping the API's own checks.
    func send<Request, Reply>(_ method: ServiceMethod<Request, Reply>, _ request: Request) throws -> Reply {
        try ScreenwardApp.client.call(method, request)
    }

    /// Problems reported so far that contain `text`.
    func problems(containing text: String) -> [String] {
        problems.all.filter { $0.contains(text) }
    }
}

/// Hour and minute as schedule components.
func at(_ hour: Int, _ minute: Int = 0) -> DateComponents {
    DateComponents(hour: hour, minute: minute)
}

func minutes(_ count: Int) -> DateComponents {
    DateComponents(minute: count)
}
