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
    private var wakeups: [LoopWakeup] = []

    init(host: ServiceHost, stateOwner: any ShieldStateOwner, answers: WebShieldPageAnswers) {
        self.host = host
        self.stateOwner = stateOwner
        self.answers = answers
    }

    func start() {
        let inbox = Inbox<ShieldAnswer>()
        let answerWakeup = LoopWakeup { [unowned self] in
            for answer in inbox.take() { answers.received(answer).forEach { $0.send() } }
        }
        stateOwner.onShieldAnswer { answer in
            inbox.put(answer)
            answerWakeup.fire()
        }
        let eventWakeup = LoopWakeup { [unowned self] in
            for (event, peer) in host.withService({ $0.takeWebShieldEvents() }) {
                answers.handle(event, from: peer).forEach { $0.send() }
            }
        }
        host.withService { $0.onWebShieldEvent = { eventWakeup.fire() } }
        wakeups = [answerWakeup, eventWakeup]
    }
}
