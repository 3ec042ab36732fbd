import Glibc
import SessionDisplay
import X11Session

extension FocusObservation {
    /// Whether the focused window is one of this agent's own: a shield (the one shown, one
    /// being replaced after tampering, one kept for reuse), the guardian's dialog. Its X client
    /// is this process (the X server says so, X-Resource): time in front of it is nobody's usage.
    var isTheAgentsOwn: Bool {
        guard let pid = facts?.pid else { return false }
        return pid == getpid()
    }
}
