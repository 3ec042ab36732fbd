import GLibRuntime
import ScreenwardCore
import SessionDisplay

/// The reference backend: an X display, followed from X events alone. The focus from
/// `_NET_ACTIVE_WINDOW` or the input focus (`FocusTracker`), input idle from the server's
/// IDLETIME alarms (`IdleWatcher`), motion in the focused window (`VisibleChangeWatcher`), and the
/// screen saver, blanked or held off by the focused application (`ScreenSaverWatcher`).
public final class X11Display: DisplayBackend {
    public let connection: XConnection
    private let loop: MainLoop
    public let focus: FocusTracker
    private let idle: IdleWatcher
    /// Motion in the focused window (XDamage); nil when the server cannot tell.
    private let changes: VisibleChangeWatcher?
    /// The screen saver blanked, or held off by the focused application; nil when the server cannot tell.
    private let saver: ScreenSaverWatcher?
    public private(set) var limitations: [String] = []
    public var trace: ((String) -> Void)?
    private var presence: (Presence.Evidence) -> Void = { _ in }
    /// The focused window's process, whose hold on the screen saver counts.
    private var focusedProcess: Int32?

    /// Follows the display `connection` is open on; input idle for `idleThreshold` is evidence
    /// that nobody is there.
    public init(connection: XConnection, loop: MainLoop, idleThreshold: Duration) throws {
        self.connection = connection
        self.loop = loop
        focus = FocusTracker(connection: connection, loop: loop)
        idle = try IdleWatcher(connection: connection, threshold: idleThreshold)
        do {
            changes = try VisibleChangeWatcher(connection: connection, loop: loop)
        } catch {
            limitations.append("a playing video counts only while input comes: \(error)")
            changes = nil
        }
        do {
            saver = try ScreenSaverWatcher(connection: connection)
        } catch {
            limitations.append("the screen saver's state is not followed: \(error)")
            saver = nil
        }
    }

    public var name: String { connection.displayName }
    public var timeSource: any TimeSource { connection.timeSource }
    public var focusSource: String {
        focus.usesWindowManager ? "EWMH window manager" : "no window manager: following the input focus"
    }

    public func onConnectionLost(_ handler: @escaping () -> Void) {
        connection.onConnectionLost(handler)
    }

    public func start(focus: @escaping (FocusObservation) -> Void, presence: @escaping (Presence.Evidence) -> Void) {
        self.presence = presence
        let now = { [connection] in connection.timeSource.now() }
        idle.start { [unowned self] transition in
            switch transition {
            case .becameIdle(let lastInput):
                trace?("idle: no input since \(lastInput.wall)")
                presence(.inputIdle(lastInput: lastInput, at: now()))
            case .returned(let time):
                trace?("idle: input again")
                presence(.inputReturned(at: time))
            }
        }
        if let trace {
            changes?.trace = { line in trace("damage: \(line)") }
            saver?.trace = { line in trace("screen saver: \(line)") }
        }
        changes?.start { since, latest in presence(.motion(since: since, latest: latest)) }
        do {
            try saver?.start(
                blank: { [unowned self] blank, time in
                    trace?("the screen saver is \(blank ? "on" : "off")")
                    presence(.blanked(blank, at: time))
                },
                holdsChanged: { [unowned self] time in updateHolding(at: time) })
        } catch {
            limitations.append("an application holding the screen saver off is not seen: \(error)")
        }
        if let trace { self.focus.trace = { line in trace("focus tracker: \(line)") } }
        self.focus.start { [unowned self] observation in
            focusedProcess = observation.facts?.pid
            changes?.watch(observation.window)
            updateHolding(at: observation.time)
            focus(observation)
        }
    }

    /// Whether the focused window's process holds the screen saver off, told as evidence.
    private func updateHolding(at time: ClockReading) {
        guard let saver else { return }
        presence(.holding(saver.holds.isHeld(byProcess: focusedProcess), at: time))
    }
}
