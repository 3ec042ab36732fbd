import CX11
import GLibRuntime

extension MainLoop {
    /// Carries `connection`'s events on this loop through a GSource that knows about
    /// Xlib's own queue (see the shim).
    /// Cancel the registration before the connection's server goes away (tests that
    /// end their X server), or the loop reads from a dead connection.
    @discardableResult
    public func attach(_ connection: XConnection) -> Registration {
        attach(source: UnsafeMutableRawPointer(sw_x_source_new(connection.display))) { connection.drainEvents() }
    }
}
