import CGLib
import CX11
import GLibRuntime
import ScreenwardCore
import SessionDisplay

/// The screen saver, as it bears on whether anyone watches: whether it is on (the screen is
/// blanked, MIT-SCREEN-SAVER's notify events), and which applications hold it off
/// (`XScreenSaverSuspend`, as browsers do while a video with sound plays).
///
/// The server tells no other client who suspended the screen saver, so the watcher records
/// every client's ScreenSaverSuspend requests as they are made (the RECORD extension, on a
/// connection of its own that carries nothing else), and every client's end, which drops its
/// holds. Each is an event: nothing is polled, and nothing comes while nobody asks.
/// `XResetScreenSaver` needs nothing here: it resets the idle counter, as input does.
public final class ScreenSaverWatcher {
    private let connection: XConnection
    private var saverEventBase: Int32 = 0
    private var saverMajor: Int32 = 0
    private var recordDisplay: OpaquePointer?
    private var record: UnsafeMutablePointer<SWSaverRecord>?
    private var context: XRecordContext = 0
    private var source: guint = 0
    public private(set) var holds = ScreenSaverHolds()
    public private(set) var isBlanked = false
    private var onHolds: (ClockReading) -> Void = { _ in }
    private var onBlank: (Bool, ClockReading) -> Void = { _, _ in }
    /// Each request seen, for `--verbose` diagnosis.
    public var trace: ((String) -> Void)?

    public init(connection: XConnection) throws {
        self.connection = connection
        var errorBase: Int32 = 0
        guard XScreenSaverQueryExtension(connection.display, &saverEventBase, &errorBase) != 0 else {
            throw X11Error.missingExtension("MIT-SCREEN-SAVER")
        }
        var firstEvent: Int32 = 0
        var firstError: Int32 = 0
        guard XQueryExtension(connection.display, "MIT-SCREEN-SAVER", &saverMajor, &firstEvent, &firstError) != 0
        else { throw X11Error.missingExtension("MIT-SCREEN-SAVER") }
    }

    deinit {
        if source != 0 { g_source_remove(source) }
        if context != 0 {
            XRecordDisableContext(connection.display, context)
            XRecordFreeContext(connection.display, context)
        }
        if let recordDisplay { XCloseDisplay(recordDisplay) }
        if let record {
            Unmanaged<HoldBox>.fromOpaque(record.pointee.closure).release()
            record.deallocate()
        }
    }

    /// Starts watching: `blank` hears the screen saver come on and go off (and its state now,
    /// if on), `holdsChanged` each change of who holds it off. Throws when the server cannot
    /// record requests (then only the blank is watched).
    public func start(
        blank: @escaping (Bool, ClockReading) -> Void, holdsChanged: @escaping (ClockReading) -> Void
    ) throws {
        onBlank = blank
        onHolds = holdsChanged
        let display = connection.display
        XScreenSaverSelectInput(display, connection.root, UInt(ScreenSaverNotifyMask))
        connection.addEventHandler { [unowned self] event in handle(&event) }
        if let info = XScreenSaverAllocInfo() {
            defer { XFree(info) }
            if XScreenSaverQueryInfo(display, connection.root, info) != 0, info.pointee.state == ScreenSaverOn {
                isBlanked = true
                blank(true, connection.timeSource.now())
            }
        }
        try startRecording()
    }

    private func handle(_ event: inout XEvent) {
        guard sw_event_type(&event) == saverEventBase + ScreenSaverNotify else { return }
        let on = sw_saver_event_state(&event) != ScreenSaverOff
        guard on != isBlanked else { return }
        isBlanked = on
        onBlank(on, connection.reading(forServerTime: sw_saver_event_time(&event)))
    }

    // MARK: Holds

    private func startRecording() throws {
        var major: Int32 = 0
        var minor: Int32 = 0
        guard XRecordQueryVersion(connection.display, &major, &minor) != 0 else {
            throw X11Error.missingExtension("RECORD")
        }
        guard let data = XOpenDisplay(connection.displayName) else {
            throw X11Error.cannotOpenDisplay(connection.displayName)
        }
        recordDisplay = data
        // Its loss is the session's end, as the main connection's is (XErrors.swift).
        XSetIOErrorExitHandler(data, xIOErrorExitHandler, nil)
        let box = HoldBox { [unowned self] kind, client, suspend, serverTime in
            recorded(kind: kind, client: client, suspend: suspend, serverTime: serverTime)
        }
        let record = UnsafeMutablePointer<SWSaverRecord>.allocate(capacity: 1)
        record.initialize(
            to: SWSaverRecord(
                fn: holdRecorded, closure: Unmanaged.passRetained(box).toOpaque(), saver_major: saverMajor))
        self.record = record
        context = sw_saver_record_start(connection.display, data, record)
        guard context != 0 else { throw X11Error.missingExtension("RECORD (no context)") }
        // The data connection carries only recorded requests: whenever it is readable, every
        // complete reply is handed to the intercept (XRecordProcessReplies reads them all).
        source = g_unix_fd_add_full(
            G_PRIORITY_DEFAULT, sw_connection_number(data), G_IO_IN, recordReadable,
            UnsafeMutableRawPointer(data), nil)
        XRecordProcessReplies(data)
    }

    private func recorded(kind: Int32, client: UInt, suspend: UInt32, serverTime: UInt) {
        let time =
            serverTime != 0
            ? connection.reading(forServerTime: Time(serverTime)) : connection.timeSource.now()
        switch kind {
        case 1:
            let pid = connection.processID(ofClient: client)
            trace?(
                "client 0x\(String(client, radix: 16)) (pid \(pid.map { "\($0)" } ?? "?")) "
                    + (suspend == 1 ? "suspends" : "resumes") + " the screen saver")
            holds.request(client: client, pid: pid, suspend: suspend)
        case 2:
            guard holds.clientEnded(client) else { return }
            trace?("client 0x\(String(client, radix: 16)) ended, and its hold on the screen saver with it")
        default:
            return
        }
        onHolds(time)
    }
}

private final class HoldBox {
    let action: (Int32, UInt, UInt32, UInt) -> Void
    init(_ action: @escaping (Int32, UInt, UInt32, UInt) -> Void) { self.action = action }
}

private let holdRecorded: sw_saver_record_fn = { closure, kind, client, suspend, serverTime in
    Unmanaged<HoldBox>.fromOpaque(closure!).takeUnretainedValue().action(kind, client, suspend, serverTime)
}

private let recordReadable: GUnixFDSourceFunc = { _, _, data in
    XRecordProcessReplies(OpaquePointer(data))
    return 1  // G_SOURCE_CONTINUE
}

extension XConnection {
    /// The pid of the client whose resources start at `client` (X-Resource), if the server knows it.
    func processID(ofClient client: UInt) -> Int32? {
        guard hasXRes else { return nil }
        var spec = XResClientIdSpec(client: XID(client), mask: UInt32(XRES_CLIENT_ID_PID_MASK.rawValue))
        var count: Int = 0
        var values: UnsafeMutablePointer<XResClientIdValue>?
        guard XResQueryClientIds(display, 1, &spec, &count, &values) == Success, let values else { return nil }
        defer { XResClientIdsDestroy(count, values) }
        for index in 0..<count {
            let pid = XResGetClientPid(values.advanced(by: index))
            if pid > 0 { return pid }
        }
        return nil
    }
}
