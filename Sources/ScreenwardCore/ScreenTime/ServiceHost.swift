import Foundation
import ManagedSettings
import ScreenwardIPC
import Synchronization

/// Puts a `ScreenTimeService` behind a lock so requests can come from the socket's
/// threads while the agent's loop runs the engine; lines go out after the lock is
/// released, so a monitor in this process may call straight back in.
public final class ServiceHost: ServiceRequestHandler {
    private let service: Mutex<ScreenTimeService>
    private let afterRequestHook = Mutex<(@Sendable () -> Void)?>(nil)
    private let shieldAnswerHook = Mutex<(@Sendable (ShieldAnswer) -> Void)?>(nil)
    private let misbehaviourHook = Mutex<(@Sendable (ServicePeer, String) -> Void)?>(nil)

    /// Called after each request is answered, on the thread that answered it (the
    /// agent wakes its loop with it, to re-arm the engine's deadline).
    public var afterRequest: (@Sendable () -> Void)? {
        get { afterRequestHook.withLock { $0 } }
        set { afterRequestHook.withLock { $0 = newValue } }
    }

    /// Called with each answer of an app's shield extension, on the thread that received
    /// it (a socket thread; inline, before `requestShield…` returns, with an in-process
    /// client), after the host's lock is released. Answers to unknown, cancelled or
    /// already answered requests, and answers from another connection than the one
    /// asked, never come here.
    public var onShieldAnswer: (@Sendable (ShieldAnswer) -> Void)? {
        get { shieldAnswerHook.withLock { $0 } }
        set { shieldAnswerHook.withLock { $0 = newValue } }
    }

    /// Called with a peer that sent what no honest client sends (a line that is not a
    /// message, one over the length limit, a token it was never given) and what it was,
    /// on the thread that received it. The agent stops an extension it started that does.
    public var onMisbehaviour: (@Sendable (ServicePeer, String) -> Void)? {
        get { misbehaviourHook.withLock { $0 } }
        set { misbehaviourHook.withLock { $0 = newValue } }
    }

    public init(_ service: sending ScreenTimeService) {
        self.service = Mutex(service)
    }

    public func received(frame: Data, from peer: ServicePeer) {
        let (deliveries, answers, lies) = service.withLock { service in
            let deliveries = service.handle(frame: frame, from: peer)
            return (deliveries, service.takeShieldAnswers(), service.takeLies())
        }
        deliveries.forEach { $0.send() }
        if !answers.isEmpty, let onShieldAnswer { answers.forEach(onShieldAnswer) }
        if let onMisbehaviour {
            for lie in lies { onMisbehaviour(lie.peer, "it used a token it was never given: \(lie.what)") }
        }
        afterRequest?()
    }

    public func refused(_ peer: ServicePeer, because reason: String) {
        onMisbehaviour?(peer, "it sent a line that is not a message: \(reason)")
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

    // MARK: Shield extensions (for the shield presenter)

    /// Asks `owner`'s shield configuration data source how to draw `item`'s shield; its
    /// answer comes later through `onShieldAnswer` (possibly before this returns, on
    /// another thread: hop onto your own loop there). Nil when `owner` has no data
    /// source attached: show the default shield at once.
    public func requestShieldConfiguration(owner: String, item: ShieldedItem) -> ShieldRequestID? {
        guard let (id, delivery) = service.withLock({ $0.requestShieldConfiguration(owner: owner, item: item) }) else {
            return nil
        }
        delivery.send()
        return id
    }

    /// Tells `owner`'s shield action delegate that `action` happened on `item`'s shield;
    /// its response comes through `onShieldAnswer`. Nil when `owner` has no delegate
    /// attached: use `ShieldActionDelegate.defaultResponse(to:)`.
    public func requestShieldAction(owner: String, action: ShieldAction, item: ShieldedItem) -> ShieldRequestID? {
        guard
            let (id, delivery) = service.withLock({ $0.requestShieldAction(owner: owner, action: action, item: item) })
        else { return nil }
        delivery.send()
        return id
    }

    /// Asks `owner`'s shield action delegate when it attaches (the owner is starting it).
    public func requestShieldActionWhenAttached(owner: String, action: ShieldAction, item: ShieldedItem)
        -> ShieldRequestID
    {
        service.withLock { $0.requestShieldActionWhenAttached(owner: owner, action: action, item: item) }
    }

    /// Forgets an outstanding request (the presenter stopped waiting, or the shield went
    /// away): an answer that still comes is ignored.
    public func cancelShieldRequest(_ id: ShieldRequestID) {
        service.withLock { $0.cancelShieldRequest(id) }
    }

    /// Runs `body` with the service (under the lock: do not call back into the host).
    public func withService<Result: Sendable>(_ body: (ScreenTimeService) throws -> Result) rethrows -> Result {
        try service.withLock { try body($0) }
    }
}
