import CX11
import Foundation
import GLibRuntime
import SessionDisplay

/// Closes an application's window the gentlest way that works: the window manager's
/// `_NET_CLOSE_WINDOW`, then the client's own `WM_DELETE_WINDOW`, then SIGTERM to
/// its process, then SIGKILL, each after a grace period in which the earlier step
/// did not work. (What a shield's `.close` does, and what happens to a window that
/// cannot be shielded reliably.)
public final class WindowCloser {
    public enum Step: String, Sendable, CaseIterable {
        case closeRequest = "_NET_CLOSE_WINDOW"
        case deleteWindow = "WM_DELETE_WINDOW"
        case terminate = "SIGTERM"
        case kill = "SIGKILL"
    }

    public enum Outcome: Sendable, Equatable {
        /// The window (or its process) went away after `step`.
        case closed(after: Step)
        /// Nothing worked: the window is still there and no process is known or killable.
        case failed(String)
    }

    private let connection: XConnection
    private let loop: MainLoop
    public let grace: Duration
    /// How often, within a grace period, the window is looked for.
    private let checkEvery: Duration = .milliseconds(50)

    public init(connection: XConnection, loop: MainLoop, grace: Duration = .seconds(2)) {
        self.connection = connection
        self.loop = loop
        self.grace = grace
    }

    /// Starts closing `window` (owned by `pid`, when known) from step `first` on
    /// (`.terminate` ends the process without asking the window first); `onStep`
    /// hears each step as it is taken and `done` the outcome. Returns at once; the
    /// steps run on the loop.
    public func close(
        _ window: WindowID, pid: Int32?, from first: Step = .closeRequest, onStep: @escaping (Step) -> Void = { _ in },
        done: @escaping (Outcome) -> Void
    ) {
        let start = Step.allCases.firstIndex(of: first) ?? 0
        run(Step.allCases[start...], window: window, pid: pid, onStep: onStep, done: done)
    }

    private func run(
        _ steps: ArraySlice<Step>, window: WindowID, pid: Int32?, onStep: @escaping (Step) -> Void,
        done: @escaping (Outcome) -> Void
    ) {
        guard let step = steps.first else {
            return done(.failed("window \(window) is still there after SIGKILL"))
        }
        guard take(step, window: window, pid: pid) else {
            // No process to signal: this step cannot be taken.
            return run(steps.dropFirst(), window: window, pid: pid, onStep: onStep, done: done)
        }
        onStep(step)
        let deadline = ContinuousClock.now + grace
        func check() {
            if isGone(window, pid: pid, after: step) { return done(.closed(after: step)) }
            if ContinuousClock.now >= deadline {
                return run(steps.dropFirst(), window: window, pid: pid, onStep: onStep, done: done)
            }
            loop.schedule(after: checkEvery, check)
        }
        loop.schedule(after: checkEvery, check)
    }

    /// Takes one step; false when it cannot be taken (no pid for a signal).
    private func take(_ step: Step, window: WindowID, pid: Int32?) -> Bool {
        switch step {
        case .closeRequest:
            connection.requestClose(of: window)
            connection.flush()
        case .deleteWindow:
            connection.sendDeleteWindow(to: window)
            connection.flush()
        case .terminate:
            guard let pid, pid > 0 else { return false }
            Foundation.kill(pid, SIGTERM)
        case .kill:
            guard let pid, pid > 0 else { return false }
            Foundation.kill(pid, SIGKILL)
        }
        return true
    }

    /// Closed when the window is gone (or withdrawn), or its process has ended. A window
    /// id is reused once its client disconnects: a window of that id owned by another
    /// process is another window, and this one is gone.
    private func isGone(_ window: WindowID, pid: Int32?, after step: Step) -> Bool {
        if !connection.windowExists(window) { return true }
        guard let pid, pid > 0 else { return false }
        if Foundation.kill(pid, 0) != 0 && errno == ESRCH { return true }
        if let owner = connection.processID(of: Window(window.rawValue)), owner != pid { return true }
        return false
    }
}

extension XConnection {
    /// Whether `window` exists and is mapped (a withdrawn window counts as closed).
    package func windowExists(_ window: WindowID) -> Bool {
        var attributes = XWindowAttributes()
        let (status, errors) = withErrorWatch { XGetWindowAttributes(display, Window(window.rawValue), &attributes) }
        return status != 0 && errors.isEmpty && attributes.map_state != IsUnmapped
    }
}
