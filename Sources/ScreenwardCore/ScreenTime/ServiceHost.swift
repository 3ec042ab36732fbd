import Foundation
import ScreenwardIPC
import Synchronization

/// Puts a `ScreenTimeService` behind a lock so requests can come from the socket's
/// threads while the agent's loop runs the engine; lines go out after the lock is
/// released, so a monitor in this process may call straight back in.
public final class ServiceHost: ServiceRequestHandler {
    private let service: Mutex<ScreenTimeService>
    private let afterRequestHook = Mutex<(@Sendable () -> Void)?>(nil)

    /// Called after each request is answered, on the thread that answered it (the
    /// agent wakes its loop with it, to re-arm the engine's deadline).
    public var afterRequest: (@Sendable () -> Void)? {
        get { afterRequestHook.withLock { $0 } }
        set { afterRequestHook.withLock { $0 = newValue } }
    }

    public init(_ service: sending ScreenTimeService) {
        self.service = Mutex(service)
    }

    public func received(frame: Data, from peer: ServicePeer) {
        let deliveries = service.withLock { $0.handle(frame: frame, from: peer) }
        deliveries.forEach { $0.send() }
        afterRequest?()
    }

    public func disconnected(_ peer: ServicePeer) {
        service.withLock { $0.disconnected(peer) }
    }

    /// Delivers what is due now.
    public func runDue() {
        let deliveries = service.withLock { $0.runDue() }
        deliveries.forEach { $0.send() }
    }

    public func nextDeadline() -> Date? {
        service.withLock { $0.nextDeadline() }
    }

    /// Runs `body` with the service (under the lock: do not call back into the host).
    public func withService<Result: Sendable>(_ body: (ScreenTimeService) throws -> Result) rethrows -> Result {
        try service.withLock { try body($0) }
    }
}
