import CX11
import GLibRuntime
import ScreenwardCore
import SessionDisplay

/// Watches what is drawn in the focused window with the Damage extension, and says when it is
/// motion someone watches (`MotionRule`).
///
/// The damage object reports once when the window's damage becomes non-empty
/// (`XDamageReportNonEmpty`), and not again until the watcher takes the damage away. So it
/// wakes only when something is drawn: it then waits `MotionRule.sampleInterval`, takes what
/// was drawn meanwhile (its area, in one round trip) and re-arms. A window that draws nothing
/// costs no wake-up at all; one that plays a video, two a second. Damage covers the window and
/// its children, clipped to what shows of them: what another window covers (a locker, a
/// shield) is not drawn, so it is no change.
public final class VisibleChangeWatcher {
    private let connection: XConnection
    private let loop: MainLoop
    private var eventBase: Int32 = 0
    private let scratch: XserverRegion
    private var damage: Damage = 0
    private var window: Window = 0
    private var windowArea = 0
    private var firstChange: ClockReading?
    private var sampleTimer: MainLoop.Registration?
    private var rule = MotionRule()
    private var handler: (_ since: ClockReading, _ latest: ClockReading) -> Void = { _, _ in }
    /// Each sample, for `--verbose` diagnosis.
    public var trace: ((String) -> Void)?

    public init(connection: XConnection, loop: MainLoop) throws {
        self.connection = connection
        self.loop = loop
        var errorBase: Int32 = 0
        var major: Int32 = 1
        var minor: Int32 = 1
        guard XDamageQueryExtension(connection.display, &eventBase, &errorBase) != 0,
            XDamageQueryVersion(connection.display, &major, &minor) != 0
        else { throw X11Error.missingExtension("DAMAGE") }
        var fixesEvent: Int32 = 0
        var fixesError: Int32 = 0
        var fixesMajor: Int32 = 2
        var fixesMinor: Int32 = 0
        guard XFixesQueryExtension(connection.display, &fixesEvent, &fixesError) != 0,
            XFixesQueryVersion(connection.display, &fixesMajor, &fixesMinor) != 0
        else { throw X11Error.missingExtension("XFIXES") }
        scratch = XFixesCreateRegion(connection.display, nil, 0)
    }

    /// Reports motion through `handler`: from the first change of the run to the latest.
    public func start(_ handler: @escaping (_ since: ClockReading, _ latest: ClockReading) -> Void) {
        self.handler = handler
        connection.addEventHandler { [unowned self] event in handle(&event) }
    }

    /// Watches `window` (the focused top level) from now on; nil watches nothing.
    public func watch(_ focused: WindowID?) {
        let next = focused.map { Window($0.rawValue) } ?? 0
        guard next != window else { return }
        stop()
        rule.reset()
        window = next
        guard next != 0 else { return }
        let display = connection.display
        let created = connection.withErrorWatch { () -> Damage in
            let damage = XDamageCreate(display, next, Int32(XDamageReportNonEmpty))
            // A new damage object starts with the whole window damaged: that is no change.
            XDamageSubtract(display, damage, 0, 0)
            return damage
        }
        damage = created.value
        windowArea = 0
        if !created.errors.isEmpty {
            // Gone before it could be watched (a focus event about it follows).
            damage = 0
            window = 0
        }
        connection.flush()
    }

    private func stop() {
        sampleTimer?.cancel()
        sampleTimer = nil
        firstChange = nil
        if damage != 0 {
            let display = connection.display
            let old = damage
            // Freed with its window when the window went first: no error worth hearing.
            connection.ignoringErrors { XDamageDestroy(display, old) }
            damage = 0
        }
    }

    private func handle(_ event: inout XEvent) {
        guard sw_event_type(&event) == eventBase + XDamageNotify, damage != 0,
            sw_damage_event_damage(&event) == damage
        else { return }
        windowArea = sw_damage_event_drawable_area(&event)
        guard sampleTimer == nil else { return }
        firstChange = connection.reading(forServerTime: sw_damage_event_time(&event))
        let sampled = damage
        sampleTimer = loop.schedule(after: MotionRule.sampleInterval) { [unowned self] in
            sampleTimer = nil
            guard sampled == damage, let first = firstChange else { return }
            sample(firstChange: first)
        }
    }

    private func sample(firstChange: ClockReading) {
        self.firstChange = nil
        let display = connection.display
        let (damage, scratch) = (self.damage, self.scratch)
        let taken = connection.ignoringErrors { Int(sw_damage_take_area(display, damage, scratch)) }
        let now = connection.timeSource.now()
        let motion = rule.take(area: taken, windowArea: windowArea, firstChange: firstChange, at: now)
        trace?(
            "window 0x\(String(window, radix: 16)): \(taken) of \(windowArea) px changed"
                + (motion == nil ? "" : " (motion)"))
        if let motion { handler(motion.since, motion.latest) }
    }
}
