import CWayland
import ScreenwardCore
import SessionDisplay

/// No input on the seat for a threshold, as the compositor tells it: `ext_idle_notifier_v1`
/// where offered, else KDE's `org_kde_kwin_idle` (wlroots 0.15, as in Debian 12, offers only
/// that). Both count an idle inhibitor (a video player, a browser playing a video) as input:
/// the compositor never calls the seat idle while one shows, the Wayland form of an application
/// holding the screen saver off.
public final class IdleNotification {
    public enum Change: Sendable {
        /// No input for the threshold.
        case idled
        /// Input again.
        case resumed
    }

    /// Which protocol tells, for the log.
    public let source: String
    /// Kept until the notification is destroyed: released first, it would disconnect, and
    /// the destroy request would go to a display that is gone.
    private let connection: WaylandConnection
    private let notification: OpaquePointer
    private let destroy: (OpaquePointer) -> Void
    /// No input for this long is idle.
    public let threshold: Duration
    private var handler: (Change) -> Void = { _ in }

    public init(connection: WaylandConnection, threshold: Duration) throws {
        guard let seatGlobal = connection.global("wl_seat") else {
            throw WaylandError.missingProtocol("a seat (wl_seat)", compositor: connection.displayName)
        }
        self.threshold = threshold
        self.connection = connection
        let seat = connection.bind(seatGlobal, interface: sw_wl_seat_interface(), version: 1)
        let milliseconds = UInt32(max(1, min(Double(UInt32.max), threshold / .milliseconds(1))))
        if let global = connection.global("ext_idle_notifier_v1") {
            let notifier = connection.bind(global, interface: sw_ext_idle_notifier_interface(), version: 1)
            notification = ext_idle_notifier_v1_get_idle_notification(notifier, milliseconds, seat)
            destroy = { ext_idle_notification_v1_destroy($0) }
            source = "ext-idle-notify-v1"
        } else if let global = connection.global("org_kde_kwin_idle") {
            let idle = connection.bind(global, interface: sw_kde_idle_interface(), version: 1)
            notification = org_kde_kwin_idle_get_idle_timeout(idle, seat, milliseconds)
            destroy = { org_kde_kwin_idle_timeout_release($0) }
            source = "org_kde_kwin_idle"
        } else {
            throw WaylandError.missingProtocol(
                "an idle protocol (ext_idle_notifier_v1 or org_kde_kwin_idle)", compositor: connection.displayName)
        }
    }

    deinit { destroy(notification) }

    public func start(_ handler: @escaping (Change) -> Void) {
        self.handler = handler
        let me = Unmanaged.passUnretained(self).toOpaque()
        if source == "ext-idle-notify-v1" {
            _ = ext_idle_notification_v1_add_listener(notification, extListener, me)
        } else {
            _ = org_kde_kwin_idle_timeout_add_listener(notification, kdeListener, me)
        }
    }

    fileprivate func changed(_ change: Change) { handler(change) }

    /// Starts listening, telling each change as evidence of presence: idle means the last input
    /// came the threshold ago, read on `clock`.
    public func start(
        as presence: @escaping (Presence.Evidence) -> Void, clock: any TimeSource,
        trace: @escaping (String) -> Void
    ) {
        start { [threshold] change in presence(change.evidence(threshold: threshold, clock: clock, trace: trace)) }
    }
}

extension IdleNotification.Change {
    /// The change as evidence of presence: idle means the last input came the threshold ago,
    /// read on `clock`.
    func evidence(threshold: Duration, clock: any TimeSource, trace: (String) -> Void) -> Presence.Evidence {
        let now = clock.now()
        switch self {
        case .idled:
            trace("idle: no input for \(threshold)")
            return .inputIdle(lastInput: now.earlier(by: threshold), at: now)
        case .resumed:
            trace("idle: input again")
            return .inputReturned(at: now)
        }
    }
}

private func idle(_ data: UnsafeMutableRawPointer?) -> IdleNotification {
    Unmanaged<IdleNotification>.fromOpaque(data!).takeUnretainedValue()
}

nonisolated(unsafe) private let extListener = Listener.make(
    ext_idle_notification_v1_listener(
        idled: { data, _ in idle(data).changed(.idled) },
        resumed: { data, _ in idle(data).changed(.resumed) }))

nonisolated(unsafe) private let kdeListener = Listener.make(
    org_kde_kwin_idle_timeout_listener(
        idle: { data, _ in idle(data).changed(.idled) },
        resumed: { data, _ in idle(data).changed(.resumed) }))
