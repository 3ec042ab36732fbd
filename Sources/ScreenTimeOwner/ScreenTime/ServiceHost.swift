import Foundation
import ManagedSettings
import ScreenwardBasics
import ScreenwardIPC

/// The state owner as its clients' lines reach it: a `ScreenTimeService` on its owner's
/// loop. Lines from a socket are handed to the loop first (`RequestsOnLoop`); an app in
/// the same process reaches it inline, on the loop, through a `DirectTransport`. It takes
/// no lock: one use at a time is checked (`ExclusiveAccess`), and the lines a use makes
/// go out after it ends, so a monitor in this process may call straight back in.
public final class ServiceHost: ServiceRequestHandler {
    private struct State {
        var service: ScreenTimeService
        var afterRequest: (() -> Void)?
        var onShieldAnswer: ((ShieldAnswer) -> Void)?
        var onMisbehaviour: ((ServicePeer, String) -> Void)?
    }
    private let state: ExclusiveAccess<State>

    /// Called after each request is answered (the agent re-arms the engine's deadline).
    public var afterRequest: (() -> Void)? {
        get { state { $0.afterRequest } }
        set { state { $0.afterRequest = newValue } }
    }

    /// Called with each answer of an app's shield extension (inline, before
    /// `requestShield…` returns, with an in-process client). Answers to unknown, cancelled
    /// or already answered requests, and answers from another connection than the one
    /// asked, never come here.
    public var onShieldAnswer: ((ShieldAnswer) -> Void)? {
        get { state { $0.onShieldAnswer } }
        set { state { $0.onShieldAnswer = newValue } }
    }

    /// Called with a peer that sent what no honest client sends (a line that is not a
    /// message, one over the length limit, a token it was never given) and what it was.
    /// The agent stops an extension it started that does.
    public var onMisbehaviour: ((ServicePeer, String) -> Void)? {
        get { state { $0.onMisbehaviour } }
        set { state { $0.onMisbehaviour = newValue } }
    }

    public init(_ service: ScreenTimeService) {
        state = ExclusiveAccess(State(service: service), what: "the state owner")
    }

    public func received(frame: Data, from peer: ServicePeer) {
        // Answers and lies stay with the service for whoever takes them there (the daemon's
        // relay, its extension supervision) unless this host has someone to hand them to.
        let (deliveries, answers, lies, hooks) = state { state in
            let deliveries = state.service.handle(frame: frame, from: peer)
            return (
                deliveries, state.onShieldAnswer == nil ? [] : state.service.takeShieldAnswers(),
                state.onMisbehaviour == nil ? [] : state.service.takeLies(),
                (state.onShieldAnswer, state.onMisbehaviour, state.afterRequest)
            )
        }
        deliveries.forEach { $0.send() }
        let (onShieldAnswer, onMisbehaviour, afterRequest) = hooks
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
        state { $0.service.disconnected(peer) }
    }

    /// Delivers what is due now.
    public func runDue() {
        let deliveries = state { $0.service.runDue() }
        deliveries.forEach { $0.send() }
    }

    public func nextDeadline() -> Date? {
        state { $0.service.nextDeadline() }
    }

    // MARK: Shield extensions (for the shield presenter)

    /// Asks `owner`'s shield configuration data source how to draw `item`'s shield; its
    /// answer comes later through `onShieldAnswer` (before this returns, from an app in
    /// this process). Nil when `owner` has no data
    /// source attached: show the default shield at once.
    public func requestShieldConfiguration(owner: String, item: ShieldedItem) -> ShieldRequestID? {
        guard let (id, delivery) = state({ $0.service.requestShieldConfiguration(owner: owner, item: item) }) else {
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
            let (id, delivery) = state({ $0.service.requestShieldAction(owner: owner, action: action, item: item) })
        else { return nil }
        delivery.send()
        return id
    }

    /// Asks `owner`'s shield action delegate when it attaches (the owner is starting it).
    public func requestShieldActionWhenAttached(owner: String, action: ShieldAction, item: ShieldedItem)
        -> ShieldRequestID
    {
        state { $0.service.requestShieldActionWhenAttached(owner: owner, action: action, item: item) }
    }

    /// Forgets an outstanding request (the presenter stopped waiting, or the shield went
    /// away): an answer that still comes is ignored.
    public func cancelShieldRequest(_ id: ShieldRequestID) {
        state { $0.service.cancelShieldRequest(id) }
    }

    /// Runs `body` with the service; what it makes (lines to send) goes out after it.
    public func withService<Result>(_ body: (ScreenTimeService) throws -> Result) rethrows -> Result {
        try state { try body($0.service) }
    }
}
