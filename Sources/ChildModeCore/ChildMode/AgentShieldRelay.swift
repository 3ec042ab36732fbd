import Foundation
import ManagedSettings
import ScreenTimeOwner
import ScreenTimePolicy
import ScreenwardIPC

/// A managed user's app shield extensions attach to the daemon, where the user's
/// `ScreenTimeService` runs; the shields are drawn by the session's agent. This relays
/// between them: the agent's question (under its own id) becomes the service's question
/// to the extension, and the extension's answer goes back to that agent under the
/// agent's id. The agents are told which apps have extensions attached, so a shield of
/// any other app takes the default look at once.
///
/// Single-threaded, on the daemon's loop, one per managed user.
public final class AgentShieldRelay {
    private struct Asker: Hashable {
        var agent: ServicePeer
        var id: ShieldRequestID
    }

    private let service: ScreenTimeService
    /// The service's question → the agent that asked, and its id.
    private var askers: [ShieldRequestID: Asker] = [:]
    /// What each agent was told last.
    private var told: [ServicePeer: AttachedShieldExtensions] = [:]

    /// Whether the owner starts `app`'s shield action delegate when a press needs it
    /// (it is installed); the daemon sets this.
    public var canStartAction: (String) -> Bool = { _ in false }
    /// The apps whose action delegate can be started, as told to the agents.
    public var startableActions: () -> Set<String> = { [] }
    /// Answers to questions no agent asked (the browsers' shield pages').
    public var otherAnswer: (ShieldAnswer) -> [Delivery] = { _ in [] }

    public init(service: ScreenTimeService) {
        self.service = service
    }

    /// Questions outstanding at once, whatever an agent forgets to cancel.
    static let maximumOutstanding = 1024

    /// An agent's question: the line to the app's extension, or none when the app has
    /// no extension attached (the agent's patience then shows the default). A press for
    /// an app whose delegate can be started waits for it: `startAction` is then true,
    /// and the owner starts it.
    public func ask(_ question: AgentShieldQuestion, from agent: ServicePeer) -> (
        deliveries: [Delivery], startAction: Bool
    ) {
        var startAction = false
        let asked: (ShieldRequestID, [Delivery])?
        if let action = question.action {
            if let (id, delivery) = service.requestShieldAction(
                owner: question.owner, action: action, item: question.item)
            {
                asked = (id, [delivery])
            } else if canStartAction(question.owner) {
                asked = (
                    service.requestShieldActionWhenAttached(owner: question.owner, action: action, item: question.item),
                    []
                )
                startAction = true
            } else {
                asked = nil
            }
        } else {
            asked = service.requestShieldConfiguration(owner: question.owner, item: question.item).map {
                ($0.0, [$0.1])
            }
        }
        guard let (id, deliveries) = asked else { return ([], false) }
        if askers.count >= Self.maximumOutstanding, let oldest = askers.keys.min(by: { $0.rawValue < $1.rawValue }) {
            service.cancelShieldRequest(oldest)
            askers.removeValue(forKey: oldest)
        }
        askers[id] = Asker(agent: agent, id: question.id)
        return (deliveries, startAction)
    }

    /// The agent stopped waiting: an answer that still comes is dropped.
    public func cancel(_ cancel: AgentShieldCancel, from agent: ServicePeer) {
        let asker = Asker(agent: agent, id: cancel.id)
        guard let id = askers.first(where: { $0.value == asker })?.key else { return }
        askers.removeValue(forKey: id)
        service.cancelShieldRequest(id)
    }

    /// After the user's apps were heard from (a request, or a connection that ended):
    /// the answers to hand back, and news for the agents whose extensions came or went.
    public func afterApps(agents: [ServicePeer]) -> [Delivery] {
        var deliveries: [Delivery] = []
        for answer in service.takeShieldAnswers() {
            guard let asker = askers.removeValue(forKey: answer.id) else {
                deliveries += otherAnswer(answer)
                continue
            }
            guard let line = try? AgentLinkMethods.shieldAnswer.frame(answer.answering(asker.id)) else { continue }
            deliveries.append(Delivery(peer: asker.agent, line: line))
        }
        return deliveries + tell(agents)
    }

    /// Tells each agent which apps have extensions now, when that is news to it (a
    /// newly attached agent always hears it).
    public func tell(_ agents: [ServicePeer]) -> [Delivery] {
        var now = service.attachedShieldExtensions
        now.startableAction = startableActions()
        return agents.compactMap { agent in
            guard told[agent] != now, let line = try? AgentLinkMethods.shieldExtensions.frame(now) else { return nil }
            told[agent] = now
            return Delivery(peer: agent, line: line)
        }
    }

    /// The agent's connection ended: its questions are cancelled.
    public func agentGone(_ agent: ServicePeer) {
        told[agent] = nil
        for (id, asker) in askers where asker.agent == agent {
            askers.removeValue(forKey: id)
            service.cancelShieldRequest(id)
        }
    }
}

/// A managed user's shield questions asked straight of their service, on the daemon's loop:
/// the browsers' shield pages ask so (a window's shield asks through the session's agent and
/// `AgentShieldRelay`), and their answers come back through the relay's `otherAnswer`.
public final class ServiceShieldQuestions: ShieldQuestions {
    private let service: ScreenTimeService
    /// Starts `app`'s shield action delegate for a press that needs it, when it is installed
    /// (the daemon sets this); false when it cannot be started.
    public var startAction: (String) -> Bool = { _ in false }

    init(service: ScreenTimeService) {
        self.service = service
    }

    public var effectiveShields: EffectiveShields { service.effectiveShields }

    public func requestShieldConfiguration(owner: String, item: ShieldedItem) -> ShieldRequestID? {
        guard let (id, delivery) = service.requestShieldConfiguration(owner: owner, item: item) else { return nil }
        delivery.send()
        return id
    }

    public func requestShieldAction(owner: String, action: ShieldAction, item: ShieldedItem) -> ShieldRequestID? {
        if let (id, delivery) = service.requestShieldAction(owner: owner, action: action, item: item) {
            delivery.send()
            return id
        }
        let id = service.requestShieldActionWhenAttached(owner: owner, action: action, item: item)
        guard startAction(owner) else {
            service.cancelShieldRequest(id)
            return nil
        }
        return id
    }

    public func cancelShieldRequest(_ id: ShieldRequestID) {
        service.cancelShieldRequest(id)
    }
}
