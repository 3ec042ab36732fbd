import Foundation
import ScreenwardCore
import SessionDisplay
import X11Session

/// Windows of blocked applications (`application.blockedApplications`): an app that
/// may not be used at all. Each window is closed as it appears, gentlest first, with
/// its input held meanwhile (no key or click reaches it while it waits to close); a
/// process that opens another blocked window soon after is ended instead of asked.
final class BlockedWindows {
    /// A second blocked window of one process within this time ends the process.
    static let reopeningWithin: Duration = .seconds(10)

    private struct Closing {
        var identity: AppIdentity
        var pid: Int32?
    }

    private let hold: InputHold
    private let closer: WindowCloser
    private let log: AgentLog
    private var closing: [WindowID: Closing] = [:]
    /// When each process last showed a blocked window.
    private var lastSeen: [Int32: ContinuousClock.Instant] = [:]

    init(hold: InputHold, closer: WindowCloser, log: AgentLog) {
        self.hold = hold
        self.closer = closer
        self.log = log
    }

    func isClosing(_ window: WindowID) -> Bool { closing[window] != nil }

    /// `window` belongs to an application `stores` block: it goes.
    func block(_ window: ClientWindow, of identity: AppIdentity, by stores: [BlockingStore]) {
        guard closing[window.id] == nil else { return }
        do {
            try hold.hold(window.id)
        } catch {
            log.warning("blocked: the input of \(window.id) cannot be held (\(error)); closing it all the same")
        }
        let now = ContinuousClock.now
        var first = WindowCloser.Step.closeRequest
        if let pid = window.pid, pid > 0 {
            if let seen = lastSeen[pid], now - seen < Self.reopeningWithin { first = .terminate }
            lastSeen[pid] = now
            lastSeen = lastSeen.filter { now - $0.value < Self.reopeningWithin }
        }
        closing[window.id] = Closing(identity: identity, pid: window.pid)
        let why = stores.map(\.description).joined(separator: ", ")
        if first == .terminate {
            log.warning(
                "blocked: \(identity.publicID) (process \(window.pid ?? 0)) keeps opening windows; ending the "
                    + "process (blocked by \(why))"
            )
        } else {
            log.info("blocked: closing \(window.id) of \(identity.publicID) (blocked by \(why))")
        }
        closer.close(window.id, pid: window.pid, from: first) { [log] step in
            log.info("blocked: closing \(window.id) of \(identity.publicID): \(step.rawValue)")
        } done: { [weak self, log] outcome in
            switch outcome {
            case .closed(let step): log.info("blocked: closed \(window.id) of \(identity.publicID) (\(step.rawValue))")
            case .failed(let reason):
                log.warning("blocked: could not close \(window.id) of \(identity.publicID): \(reason)")
            }
            self?.finished(window.id)
        }
    }

    /// The window went away (closed, or by itself).
    func removed(_ window: WindowID) {
        guard closing[window] != nil else { return }
        finished(window)
    }

    private func finished(_ window: WindowID) {
        guard closing.removeValue(forKey: window) != nil else { return }
        hold.release(window)
    }
}
