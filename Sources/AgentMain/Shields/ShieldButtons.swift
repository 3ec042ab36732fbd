import Foundation
import GLibRuntime
@_spi(Screenward) import ManagedSettings
import ManagedSettingsUI
import ScreenwardCore
import ShieldCoverage

/// What a shield's buttons do, whichever display the shield is on: the app's action delegate
/// is asked and waited for (`ShieldButtonWaits`), or, with none, the default response is carried
/// out; the extensions' answers (looks and responses) come back here. A `.defer` or
/// `.askForAccess` keeps the shield and asks its data source for the look again; what else a
/// response does (closing the app) is the presenter's (`respond`).
final class ShieldButtons {
    private let stateOwner: any ShieldStateOwner
    private let looks: ShieldLooks
    private let loop: MainLoop
    private let log: AgentLog
    private let respond: (ShieldActionResponse, ShieldDecision) -> Void
    private var waits = ShieldButtonWaits<ShieldDecision>()
    private var timer: MainLoop.Registration?

    init(
        stateOwner: any ShieldStateOwner, looks: ShieldLooks, loop: MainLoop, log: AgentLog,
        respond: @escaping (ShieldActionResponse, ShieldDecision) -> Void
    ) {
        self.stateOwner = stateOwner
        self.looks = looks
        self.loop = loop
        self.log = log
        self.respond = respond
    }

    func pressed(_ action: ShieldAction, on decision: ShieldDecision) {
        log.info("shield: \(action.rawValue) on the shield of \(decision.identity.publicID)")
        guard let id = stateOwner.requestShieldAction(owner: decision.owner, action: action, item: decision.item) else {
            carryOut(ShieldActionDelegate.defaultResponse(to: action), for: decision)
            return
        }
        waits.asked(id, for: decision, at: .now)
        waitForDelegates()
    }

    /// The extensions' answers: a data source's look, a delegate's response.
    func received(_ answers: [ShieldAnswer]) {
        for answer in answers {
            switch answer {
            case .configuration(let id, let configuration):
                looks.received(id, configuration)
            case .action(let id, let response):
                guard let decision = waits.answered(id) else { continue }
                carryOut(response, for: decision)
            }
        }
    }

    /// Gives up on the delegates that did not answer in time, and waits for the next.
    private func waitForDelegates() {
        for (request, decision) in waits.expired(at: .now) {
            stateOwner.cancelShieldRequest(request)
            log.warning(
                "\(decision.owner)'s shield action delegate did not answer within "
                    + "\(Int(ShieldButtonWaits<ShieldDecision>.patience.seconds)) s: nothing is done"
            )
        }
        timer?.cancel()
        timer = waits.deadline.map { deadline in
            loop.schedule(after: ContinuousClock.now.duration(to: deadline)) { [weak self] in self?.waitForDelegates() }
        }
    }

    private func carryOut(_ response: ShieldActionResponse, for decision: ShieldDecision) {
        log.info("shield: \(response.rawValue) for \(decision.identity.publicID)")
        switch response {
        case .none, .close:
            break
        case .defer, .askForAccess:
            looks.ask(decision)
        }
        respond(response, decision)
    }
}
