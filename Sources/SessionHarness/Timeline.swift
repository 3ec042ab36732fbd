import Foundation
import ScreenwardTesting
import SessionDisplay
import X11Session

/// Truth from the X server: how long each window held `_NET_ACTIVE_WINDOW`,
/// computed from the server's own timestamps between the first and last entries.
public enum ActiveWindowTruth {
    /// Milliseconds per window over the recorded changes (the last entry only ends
    /// the previous one). A moment without an active window that is shorter than
    /// `FocusTracker.transientGap` is a window manager's hand-over, not a loss of
    /// focus, as the agent counts it.
    public static func milliseconds(_ entries: [ActiveWindowLog.Entry]) -> [String: Double] {
        let changes = focusChanges(entries)
        var totals: [String: Double] = [:]
        for (entry, next) in zip(changes, changes.dropFirst()) {
            guard let window = entry.window else { continue }
            totals[window.description, default: 0] += Double(next.serverTime &- entry.serverTime)
        }
        return totals
    }

    /// Milliseconds per window between server times `from` and `to` only (the last
    /// change held until `to`).
    public static func milliseconds(_ entries: [ActiveWindowLog.Entry], from: UInt32, to: UInt32) -> [String: Double] {
        let changes = focusChanges(entries)
        var totals: [String: Double] = [:]
        for (index, change) in changes.enumerated() {
            guard let window = change.window else { continue }
            let end = index + 1 < changes.count ? changes[index + 1].serverTime : to
            let (start, stop) = (max(change.serverTime, from), min(end, to))
            if stop > start { totals[window.description, default: 0] += Double(stop - start) }
        }
        return totals
    }

    /// The changes as the agent counts them: a moment without an active window shorter
    /// than `FocusTracker.transientGap` is a hand-over, and is left out.
    public static func focusChanges(_ entries: [ActiveWindowLog.Entry]) -> [ActiveWindowLog.Entry] {
        let gap = UInt32(FocusTracker.transientGap.milliseconds)
        return entries.enumerated().filter { index, entry in
            guard entry.window == nil, index + 1 < entries.count else { return true }
            return entries[index + 1].serverTime &- entry.serverTime >= gap
        }.map(\.element)
    }
}

/// Drives a focus timeline from its own X connection and records the truth.
public final class FocusDriver {
    public let connection: XConnection
    public let log: ActiveWindowLog

    public init(display: String) throws {
        connection = try XConnection(displayName: display)
        log = ActiveWindowLog(connection: connection)
    }

    /// Asks for `window` to be activated and waits until the server says it is.
    public func activate(_ window: String, timeout: TimeInterval = 5) throws {
        guard let raw = UInt(window.replacingOccurrences(of: "0x", with: ""), radix: 16) else {
            throw HarnessError.failed("not a window id: \(window)")
        }
        let target = WindowID(raw)
        log.poll()
        // Already active (a window manager focuses new windows): no change will come.
        if connection.activeWindowProperty() == target, log.entries.last.map({ $0.window == target }) ?? true {
            return
        }
        connection.requestActivation(of: target)
        let deadline = Date().addingTimeInterval(timeout)
        var nextRequest = Date().addingTimeInterval(1)
        while log.entries.last?.window != target {
            let now = Date()
            if now > deadline {
                let recent = log.entries.suffix(6).map { "\($0.window.map { "\($0)" } ?? "none")@\($0.serverTime)" }
                throw HarnessError.timedOut(
                    """
                    window \(window) never became active (now \
                    \(connection.activeWindowProperty().map { "\($0)" } ?? "none"); last changes \(recent))
                    """
                )
            }
            if now > nextRequest {
                // A window manager busy with other work may drop a request: ask again.
                connection.requestActivation(of: target)
                nextRequest = now.addingTimeInterval(1)
            }
            Thread.sleep(forTimeInterval: 0.0005)
            log.poll()
        }
    }
}
