import CX11
import Foundation

/// Xlib's default error handler exits the process. A window can vanish between an
/// event and the property read that follows it, and hostile clients can set
/// anything, so errors are recorded here and looked at by the caller instead.
struct XProtocolError: Sendable, Equatable {
    var display: UInt
    var serial: UInt
    var errorCode: UInt8
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

let xErrorHandler: XErrorHandler = { display, event in
    guard let event else { return 0 }
    let error = event.pointee
    if recordedXErrors.count > 1024 { recordedXErrors.removeFirst(512) }
    recordedXErrors.append(
        XProtocolError(
            display: UInt(bitPattern: display), serial: UInt(error.serial), errorCode: error.error_code,
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
    if let handler = connectionLostHandlers.removeValue(forKey: UInt(bitPattern: display)) {
        handler()
        exit(0)
    }
    FileHandle.standardError.write(Data("lost the connection to the X server\n".utf8))
    exit(1)
}

let BadWindowCode: UInt8 = 3
