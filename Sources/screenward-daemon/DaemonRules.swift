import Foundation
import GLibRuntime
import ScreenwardCore
import ScreenwardIPC

/// Managed users' rules: one built-in rules app per managed user, reaching that user's
/// owner on the daemon's loop; its pushes wait for the loop (never inline while it is in
/// a call); its warnings go to the user's session as desktop notifications.
final class DaemonRules {
    private let pushes = Inbox<@Sendable () -> Void>()
    private let wakeup: LoopWakeup
    private let log: DaemonLog
    private let warningLeads: [TimeInterval]
    private let texts: RuleTexts?
    private let notifier: SessionNotifier
    private var apps: [UInt32: RulesApp] = [:]

    init(warningLeads: [TimeInterval], notifier: SessionNotifier, log: DaemonLog) {
        self.notifier = notifier
        let pushes = pushes
        wakeup = LoopWakeup { for push in pushes.take() { push() } }
        self.warningLeads = warningLeads
        self.log = log
        do {
            texts = try RuleTexts.load()
        } catch {
            texts = nil
            log.error("managed users' rules cannot run: \(error)")
        }
    }

    /// Starts `owner`'s rules; `afterRequest` runs after each of its requests (the engine, the agents).
    func open(_ owner: ManagedUserOwner, state: DaemonState, afterRequest: @escaping () -> Void) {
        guard let texts else { return }
        let handler = OwnerRequests(LoopBound((owner, afterRequest)))
        let (pushes, wakeup) = (pushes, wakeup)
        let transport = DirectTransport(handler: handler) { push in
            pushes.put(push)
            wakeup.fire()
        }
        let service = LoopBound(owner.service)
        let log = log
        let user = owner.user
        let notifier = notifier
        let app = RulesApp(
            placement: .managed, ledger: owner.ledger, transport: transport,
            owner: RulesApp.Owner(
                usage: { event, from, to in
                    try service {
                        try $0.focusedSeconds(client: RulesApp.bundleIdentifier, of: event, from: from, to: to)
                    }
                }, directory: owner.service.directory, calendar: owner.calendar),
            texts: texts, warningLeads: warningLeads, language: { "en" },
            notify: { notice in
                log.info("\(user.name): rules: notifying \"\(notice.title)\"")
                notifier.notify(notice, user: user)
            },
            report: { line in log.info("\(user.name): \(line)") })
        app.observe(
            record: { kind, actor, detail in
                log.info("\(user.name): \(kind): \(detail)")
                do {
                    try state.record(
                        ChildEvent(
                            at: Date(), kind: ChildEvent.Kind(rawValue: kind), actor: actor ?? user.name, detail: detail
                        ), uid: user.uid)
                } catch {
                    log.error("could not record \(user.name)'s \(kind): \(error)")
                }
            },
            onRequest: { request in
                log.info(
                    "\(user.name) asks for more time for \(request.applicationName) on \(request.rule): `screenward request approve \(user.name)/\(request.id)`"
                )
            })
        do {
            try app.start()
            apps[user.uid] = app
        } catch {
            log.error("cannot start \(user.name)'s rules: \(error)")
        }
    }

    func close(uid: UInt32) { apps[uid] = nil }

    func app(for uid: UInt32) -> RulesApp? { apps[uid] }
}

/// A managed user's owner as an in-process app's transport sees it: each request
/// answered at once on the daemon's loop, then what it set in motion.
private final class OwnerRequests: ServiceRequestHandler {
    private let bound: LoopBound<(ManagedUserOwner, () -> Void)>

    init(_ bound: LoopBound<(ManagedUserOwner, () -> Void)>) { self.bound = bound }

    func received(frame: Data, from peer: ServicePeer) {
        bound { owner, after in
            owner.service.handle(frame: frame, from: peer).forEach { $0.send() }
            after()
        }
    }

    func disconnected(_ peer: ServicePeer) {
        bound { owner, _ in owner.service.disconnected(peer) }
    }
}
