import Foundation
import GLibRuntime
import ScreenwardCore
import ScreenwardIPC

/// Managed users' rules: one built-in rules app per managed user, run by that user's
/// owner stack on the daemon's loop; its warnings go to the user's session as desktop
/// notifications, and what it records goes to the daemon's record of the child's events.
final class DaemonRules {
    private let pushes: LoopMailbox<@Sendable () -> Void>
    private let log: DaemonLog
    private let warningLeads: [TimeInterval]
    private let texts: RuleTexts?
    private let notifier: SessionNotifier
    private var apps: [UInt32: RulesApp] = [:]

    init(warningLeads: [TimeInterval], notifier: SessionNotifier, log: DaemonLog) {
        self.notifier = notifier
        pushes = LoopMailbox { pushes in for push in pushes { push() } }
        self.warningLeads = warningLeads
        self.log = log
        do {
            texts = try RuleTexts.load()
        } catch {
            texts = nil
            log.error("managed users' rules cannot run: \(error)")
        }
    }

    /// Shows `notice` in `user`'s session now (the daemon's own word, not a rule's).
    func tell(_ notice: RulesApp.Notice, to user: ManagedUser) {
        log.info("\(user.name): notifying \"\(notice.title)\"")
        notifier.notify(notice, user: user)
    }

    /// Starts `owner`'s rules.
    func open(_ owner: ManagedUserOwner, state: DaemonState) {
        guard let texts else { return }
        let log = log
        let user = owner.user
        let notifier = notifier
        let pushes = pushes
        do {
            apps[user.uid] = try owner.stack.startRules(
                placement: .managed, texts: texts, warningLeads: warningLeads,
                // Their session's language, as its tray last said; English before it ever has.
                language: { state.languageToSpeak(uid: user.uid) },
                notify: { notice in
                    log.info("\(user.name): rules: notifying \"\(notice.title)\"")
                    notifier.notify(notice, user: user)
                },
                report: { line in log.info("\(user.name): \(line)") },
                observe: { app in Self.observe(app, of: user, state: state, log: log) },
                later: { push in pushes.post(push) })
        } catch {
            log.error("cannot start \(user.name)'s rules: \(error)")
        }
    }

    /// What a guardian must see: each change recorded, each request for more time said.
    private static func observe(_ app: RulesApp, of user: ManagedUser, state: DaemonState, log: DaemonLog) {
        app.observe(
            record: { kind, actor, what in
                log.info("\(user.name): \(kind): \(what)")
                do {
                    try state.record(
                        ChildEvent(
                            at: Date(), kind: ChildEvent.Kind(rawValue: kind), actor: actor ?? user.name, phrase: what),
                        uid: user.uid)
                } catch {
                    log.error("could not record \(user.name)'s \(kind): \(error)")
                }
            },
            onRequest: { request in
                log.info(
                    "\(user.name) asks for more time for \(request.applicationName) on \(request.rule): "
                        + "`screenward request approve \(user.name)/\(request.id)`")
            })
    }

    func close(uid: UInt32) { apps[uid] = nil }

    func app(for uid: UInt32) -> RulesApp? { apps[uid] }
}
