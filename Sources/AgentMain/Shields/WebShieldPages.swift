import Foundation
import GLibRuntime
import ScreenwardCore
import ScreenwardIPC
import X11Session

/// The browsers' shield pages in a person's own session: the host's events and the apps'
/// answers hop onto the agent's loop, where `WebShieldPageAnswers` decides what each page
/// is told.
final class WebShieldPages {
    private let host: ServiceHost
    private let stateOwner: any ShieldStateOwner
    private let answers: WebShieldPageAnswers
    private var mailboxes: [AnyObject] = []

    init(host: ServiceHost, stateOwner: any ShieldStateOwner, answers: WebShieldPageAnswers) {
        self.host = host
        self.stateOwner = stateOwner
        self.answers = answers
    }

    func start() {
        let answered = LoopMailbox<ShieldAnswer> { [unowned self] received in
            for answer in received { answers.received(answer).forEach { $0.send() } }
        }
        stateOwner.onShieldAnswer { answer in answered.post(answer) }
        let events = LoopMailbox<Void> { [unowned self] in
            for (event, peer) in host.withService({ $0.takeWebShieldEvents() }) {
                answers.handle(event, from: peer).forEach { $0.send() }
            }
        }
        host.withService { $0.onWebShieldEvent = { events.post() } }
        mailboxes = [answered, events]
    }
}
