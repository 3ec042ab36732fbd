import CX11
import Foundation

/// Xlib's default error handler exits the process. A window can vanish between an
/// event and the property read that follows it, and hostile clients can set
/// anything, so errors are recorded here and looked at by the caller instead.
package struct XProtocolError: Sendable, Equatable {
    var display: UInt
    var serial: UInt
    var errorCode: XErrorCode
    var requestCode: UInt8
    var resourceID: UInt
}

/// Errors since the last drain, for all connections of this process. Xlib calls
/// the handler on the thread that made the request; every connection here lives on
/// the main loop's thread, so a plain array suffices.
nonisolated(unsafe) var recordedXErrors: [XProtocolError] = []

/// What to do when a connection to the X server breaks: set by the owner of the
/// connection (the agent closes the open interval and exits). Keyed by display.
nonisolated(unsafe) var connectionLostHandlers: [UInt: () -> Void] = [:]

/// The handlers installed before ours (GDK's, when GTK was initialised first): Xlib's
/// handlers are process-wide, so ours pass on what concerns other connections.
nonisolated(unsafe) private var previousErrorHandler: XErrorHandler?

/// The connections opened by `XConnection`; errors on any other are not ours to record.
nonisolated(unsafe) var ourDisplays: Set<UInt> = []

/// Makes ours the process's Xlib handlers (again, if a toolkit replaced them),
/// chained to the ones they replace.
func installErrorHandlers() {
    let previous = XSetErrorHandler(xErrorHandler)
    if let previous, !isOurs(previous) { previousErrorHandler = previous }
    // Not chained: GDK's exits with a failure, and a lost session is not one (see below).
    XSetIOErrorHandler(xIOErrorHandler)
}

private func isOurs(_ handler: XErrorHandler) -> Bool {
    unsafeBitCast(handler, to: UnsafeRawPointer.self) == unsafeBitCast(xErrorHandler, to: UnsafeRawPointer.self)
}

let xErrorHandler: XErrorHandler = { display, event in
    guard let event else { return 0 }
    // Another library's connection (GDK's): its handler decides, as before ours came.
    guard ourDisplays.contains(UInt(bitPattern: display)) else {
        return previousErrorHandler?(display, event) ?? 0
    }
    let error = event.pointee
    if recordedXErrors.count > 1024 { recordedXErrors.removeFirst(512) }
    recordedXErrors.append(
        XProtocolError(
            display: UInt(bitPattern: display), serial: UInt(error.serial),
            errorCode: XErrorCode(rawValue: error.error_code),
            requestCode: error.request_code, resourceID: UInt(error.resourceid)))
    return 0
}

/// Xlib's default I/O error handler prints a terse line and exits with status 1
/// before any exit handler runs, so the work happens here.
/// The connection is gone and Xlib cannot continue with it: a connection whose
/// owner asked to hear of it finishes its work (the agent closes the open interval)
/// and the process ends normally, since the session it served is over. Any other
/// connection ends the process with a failure, as Xlib's default would.
let xIOErrorHandler: XIOErrorHandler = { display in
    endAfterLostConnection(display)
}

let xIOErrorExitHandler: XIOErrorExitHandler = { display, _ in
    endAfterLostConnection(display)
}

private func endAfterLostConnection(_ display: OpaquePointer?) -> Never {
    // Another connection of this process to the same server (GDK's, the shields')
    // may notice first: the session is over for all of them, so the owner's work runs.
    let key = UInt(bitPattern: display)
    if let handler = connectionLostHandlers.removeValue(forKey: key) ?? connectionLostHandlers.popFirst()?.value {
        handler()
        exit(0)
    }
    FileHandle.standardError.write(Data("lost the connection to the X server\n".utf8))
    exit(1)
}

/// An X protocol error's code; those this module tells apart are named (Xlib's `X.h` defines
/// them as macros of type int).
package struct XErrorCode: RawRepresentable, Hashable, Sendable {
    package let rawValue: UInt8
    package init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The window named is gone (or never was).
    static let badWindow = XErrorCode(rawValue: 3)
    /// What XGetGeometry answers for a window that is gone.
    static let badDrawable = XErrorCode(rawValue: 9)
    /// A grab or a selection another client holds (the input hold's grab test).
    static let badAccess = XErrorCode(rawValue: 10)
}
