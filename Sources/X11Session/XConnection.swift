import CX11
import Foundation
import ScreenwardCore
import SessionDisplay

/// A window id on the X server.
public enum X11Error: Error, CustomStringConvertible {
    case cannotOpenDisplay(String)
    case missingExtension(String)

    public var description: String {
        switch self {
        case .cannotOpenDisplay(let name):
            "cannot open X display \"\(name)\": is an X server running there, and may this user connect (XAUTHORITY)?"
        case .missingExtension(let name):
            "the X server lacks the \(name) extension"
        }
    }
}

/// One Xlib connection, its atoms and its error bookkeeping.
///
/// All use happens on the thread that runs the main loop.
public final class XConnection {
    package let display: OpaquePointer
    public let displayName: String
    package let root: Window
    private var atomCache: [AtomName: Atom] = [:]
    private var eventHandlers: [(id: Int, handler: (inout XEvent) -> Void)] = []
    private var nextEventHandlerID = 0
    /// A private InputOnly window for reading the server time (created on demand).
    var timeProbeWindow: Window = 0
    /// The local clocks, and where server timestamps sit on them.
    public let timeSource: any TimeSource
    var serverClock = ServerClock()
    var xResAvailable: Bool?

    /// Opens `name` (nil: `$DISPLAY`).
    /// Makes the connections opened from now on authenticate with the cookies in `path`
    /// (Xlib reads `XAUTHORITY` at each XOpenDisplay): a benchmark running as root reads a
    /// managed user's display with that user's cookie. Call it before starting threads
    /// that read the environment.
    public static func useAuthorityFile(_ path: String) {
        setenv("XAUTHORITY", path, 1)
    }

    public init(displayName name: String?, timeSource: any TimeSource = SystemTimeSource()) throws {
        self.timeSource = timeSource
        let resolved = name ?? ProcessInfo.processInfo.environment["DISPLAY"] ?? ""
        guard let display = XOpenDisplay(resolved.isEmpty ? nil : resolved) else {
            throw X11Error.cannotOpenDisplay(resolved.isEmpty ? "(DISPLAY is not set)" : resolved)
        }
        self.display = display
        self.displayName = String(cString: XDisplayString(display))
        root = sw_default_root(display)
        ourDisplays.insert(UInt(bitPattern: display))
        installErrorHandlers()
        XSetIOErrorExitHandler(display, xIOErrorExitHandler, nil)
        calibrateServerClock()
    }

    /// Pins down where server time sits on the local monotonic clock before any
    /// event needs it: a property change on a private window is stamped by the
    /// server between our request and its reply, which brackets the offset to a
    /// fraction of a millisecond. The best of a few rounds is kept.
    private func calibrateServerClock() {
        let window = XCreateWindow(display, root, -10, -10, 1, 1, 0, 0, UInt32(InputOnly), nil, 0, nil)
        defer {
            XDestroyWindow(display, window)
            XFlush(display)
        }
        XSelectInput(display, window, EventMask.propertyChange.rawValue)
        let probe = atom(.screenwardClockProbe)
        var byte: UInt8 = 0
        var event = XEvent()
        var samples: [(before: ClockReading, after: ClockReading, serverTime: ServerTime)] = []
        for _ in 0..<8 {
            let before = timeSource.now()
            XChangeProperty(display, window, probe, Atom(XA_INTEGER), 8, PropModeReplace, &byte, 1)
            XSync(display, 0)
            let after = timeSource.now()
            if XCheckTypedWindowEvent(display, window, PropertyNotify, &event) != 0 {
                samples.append((before, after, ServerTime(event.xproperty.time)))
            }
        }
        // A server on this machine's CLOCK_MONOTONIC (as the readings are, unless a test
        // drives the time) is placed exactly rather than estimated.
        let anchor = (instant: SuspendingClock.now, milliseconds: MonotonicClock.milliseconds())
        func milliseconds(_ reading: ClockReading) -> Double {
            anchor.milliseconds + anchor.instant.duration(to: reading.monotonic).milliseconds
        }
        if !samples.isEmpty,
            samples.allSatisfy({
                ServerClock.isMonotonicClock(
                    $0.serverTime, between: milliseconds($0.before), and: milliseconds($0.after))
            })
        {
            let sample = samples[samples.count - 1]
            return serverClock.pin(
                serverTime: sample.serverTime, monotonicMilliseconds: milliseconds(sample.before), at: sample.before)
        }
        // The server truncates to whole milliseconds: the stamp T was made when the
        // server's clock read somewhere in [T, T+1), so T itself sits half a
        // millisecond before the middle of our bracket, on average.
        if let best = samples.min(by: {
            $0.before.monotonic.duration(to: $0.after.monotonic) < $1.before.monotonic.duration(to: $1.after.monotonic)
        }) {
            let middle = best.before.monotonic.duration(to: best.after.monotonic) / 2 - .microseconds(500)
            serverClock.calibrate(
                serverTime: best.serverTime,
                at: ClockReading(
                    wall: best.before.wall.addingTimeInterval(middle.seconds),
                    monotonic: best.before.monotonic + middle,
                    continuous: best.before.continuous + middle))
        }
    }

    deinit {
        connectionLostHandlers[key] = nil
        if timeProbeWindow != 0 { XDestroyWindow(display, timeProbeWindow) }
        XCloseDisplay(display)
        ourDisplays.remove(key)
    }

    var key: UInt { UInt(bitPattern: display) }

    public var rootWindow: WindowID { WindowID(UInt(root)) }

    /// Runs `handler` (then exits the process) if the server connection breaks.
    public func onConnectionLost(_ handler: @escaping () -> Void) {
        connectionLostHandlers[key] = handler
    }

    package func atom(_ name: AtomName) -> Atom {
        if let atom = atomCache[name] { return atom }
        let atom = XInternAtom(display, name.rawValue, 0)
        atomCache[name] = atom
        return atom
    }

    // MARK: Time

    /// When an event stamped `serverTime` happened, on the local clocks.
    func reading(forServerTime serverTime: Time) -> ClockReading {
        serverClock.reading(forServerTime: ServerTime(serverTime), now: timeSource.now())
    }

    /// The X server's time now (milliseconds), read the ICCCM way: a zero-length
    /// append to a property of a window this connection owns, stamped by the
    /// server in its PropertyNotify. One round trip. Nil if the event did not come.
    public func serverTimeNow() -> ServerTime? {
        if timeProbeWindow == 0 {
            timeProbeWindow = XCreateWindow(display, root, -10, -10, 1, 1, 0, 0, UInt32(InputOnly), nil, 0, nil)
            XSelectInput(display, timeProbeWindow, EventMask.propertyChange.rawValue)
        }
        var nothing: UInt8 = 0
        XChangeProperty(
            display, timeProbeWindow, atom(.screenwardTimeProbe), Atom(XA_INTEGER), 8, PropModeAppend, &nothing, 0)
        XSync(display, 0)
        var event = XEvent()
        var time: ServerTime?
        // Take every probe event queued (an earlier probe's may still wait); the last is now.
        while XCheckTypedWindowEvent(display, timeProbeWindow, PropertyNotify, &event) != 0 {
            time = ServerTime(event.xproperty.time)
        }
        return time
    }

    // MARK: Events

    /// Adds a handler every event read from this connection is offered to; the
    /// result removes it again (`removeEventHandler`).
    @discardableResult
    package func addEventHandler(_ handler: @escaping (inout XEvent) -> Void) -> Int {
        nextEventHandlerID += 1
        eventHandlers.append((nextEventHandlerID, handler))
        return nextEventHandlerID
    }

    func removeEventHandler(_ id: Int) {
        eventHandlers.removeAll { $0.id == id }
    }

    /// Reads and handles every event the server has sent so far.
    package func drainEvents() {
        var event = XEvent()
        while XPending(display) > 0 {
            XNextEvent(display, &event)
            // A copy: a handler may add or remove handlers.
            for entry in eventHandlers { entry.handler(&event) }
        }
    }

    public func flush() { XFlush(display) }

    /// Whether another change of `property` on `window` is already queued.
    package func isPropertyChangeQueued(_ window: Window, _ property: Atom) -> Bool {
        sw_property_event_queued(display, window, property) != 0
    }

    /// Waits until the server has processed every request sent so far.
    public func sync() { XSync(display, 0) }

    package func selectInput(_ window: Window, mask: EventMask) {
        XSelectInput(display, window, mask.rawValue)
    }

    // MARK: Errors

    /// The serial of the next request: errors at or after it belong to what follows.
    package func beginErrorWatch() -> UInt { UInt(sw_next_request(display)) }

    /// The errors this connection received for requests from `serial` on (forgets them).
    package func errors(since serial: UInt) -> [XProtocolError] {
        let mine = recordedXErrors.filter { $0.display == key && $0.serial >= serial }
        recordedXErrors.removeAll { $0.display == key }
        return mine
    }

    /// Runs `body` and returns its value with the protocol errors of its requests that have
    /// arrived: those of a request it waited on, and all of them after a `sync()` in it.
    /// Errors of earlier requests are not among them, and are forgotten.
    package func withErrorWatch<T>(_ body: () throws -> T) rethrows -> (value: T, errors: [XProtocolError]) {
        let mark = beginErrorWatch()
        let value = try body()
        return (value, errors(since: mark))
    }

    /// Runs `body`, letting the errors of its requests go: a window that vanished meanwhile
    /// is no error where this is used.
    package func ignoringErrors<T>(_ body: () throws -> T) rethrows -> T {
        try withErrorWatch(body).value
    }
}
