@_spi(Screenward) import DeviceActivity
@_spi(Screenward) import FamilyControls
import Foundation
import GLibRuntime
@_spi(Screenward) import ScreenTimeOwner
import ScreenwardCore
import ScreenwardIPC
import SystemAccounts
import X11Session

/// The person's own rules in individual mode: the built-in rules app of the agent's owner
/// stack, its warnings sent as desktop notifications.
enum AgentRules {
    static func start(in owner: OwnerStack, warningLeads: [TimeInterval], log: AgentLog) throws -> RulesApp {
        let notifications = DesktopNotifications()
        let pushes = LoopMailbox<@Sendable () -> Void> { pushes in for push in pushes { push() } }
        return try owner.startRules(
            placement: .individual, texts: try RuleTexts.load(), warningLeads: warningLeads,
            language: { ShieldDefaults.language() },
            notify: { [log] notice in
                log.info("rules: notifying \"\(notice.title)\"")
                notifications.send(summary: notice.title, body: notice.body) { outcome in
                    switch outcome {
                    case .shown: break
                    case .noService(let reason):
                        log.warning("rules: the warning \"\(notice.title)\" was not shown: \(reason)")
                    case .failed(let reason):
                        log.warning("rules: the notification \"\(notice.title)\" failed: \(reason)")
                    }
                }
            },
            report: { [log] line in log.info(line) },
            later: { push in pushes.post(push) })
    }
}

/// The agent's socket, on the loop: the rules' requests go to the rules app, reports to
/// their own threads, an app's first request for access to the person's dialog, what is
/// covered to the shield presenter, the rest to the Screen Time API's owner. Only the person
/// reaches this socket, so their rules are theirs to change.
final class AgentRequests: ServiceRequestHandler {
    private let host: ServiceHost
    private let rules: RulesApp?
    private let reports: AgentReports
    private let pickers: AgentPickers
    /// The person's dialog for an app's first request for access (GTK: on the loop only).
    private let access: LoopBound<AgentAccess>
    private let labels: LoopBound<AgentLabels>
    /// The windows the shield presenter covers now (nil: it shows no shields).
    private let covered: LoopBound<() -> [CoveredWindow]?>
    /// Why there is no rules app.
    private let problem: String
    private let userName: String

    init(
        host: ServiceHost, rules: RulesApp?, reports: AgentReports, pickers: AgentPickers,
        access: LoopBound<AgentAccess>, labels: LoopBound<AgentLabels>,
        covered: LoopBound<() -> [CoveredWindow]?>, problem: String
    ) {
        self.host = host
        self.rules = rules
        self.reports = reports
        self.pickers = pickers
        self.access = access
        self.labels = labels
        self.covered = covered
        self.problem = problem
        userName = (try? UnixAccount.withID(UserID(rawValue: getuid())))??.name ?? "uid \(getuid())"
    }

    func received(frame: Data, from peer: ServicePeer) {
        guard let head = try? FrameHead.decode(from: frame), let id = head.id, let method = head.method else {
            return host.received(frame: frame, from: peer)
        }
        if Self.routes.answers(method) {
            var peer = peer
            if let line = Self.routes.reply(to: frame, by: self, &peer)?.line { peer.send(line) }
        } else if method == AuthorizationMethods.request.name {
            access { $0.received(frame, from: peer) }
        } else if RulesMethods.answers(method) {
            rulesRequest(frame, id: id, method: method, from: peer)
        } else {
            host.received(frame: frame, from: peer)
        }
    }

    private static let routes = ServiceRoutes<AgentRequests, ServicePeer>(
        [
            .on(ReportMethods.run, errors: { $0 as? ServiceError ?? ServiceError(.internalFailure, "\($0)") }) {
                agent, peer, frame, pending in
                agent.reports.answer(frame.body, from: peer, pending)
            },
            .on(ReportMethods.present, errors: { $0 as? ServiceError ?? ServiceError(.internalFailure, "\($0)") }) {
                agent, peer, frame, pending in
                try agent.reports.present(frame, from: peer, pending)
            },
            .on(
                AuthorizationMethods.presentPicker,
                errors: { $0 as? ServiceError ?? ServiceError(.internalFailure, "\($0)") }
            ) {
                agent, peer, frame, pending in
                try agent.pickers.present(frame, from: peer, pending)
            },
            .on(LabelMethods.show, errors: { $0 as? ServiceError ?? ServiceError(.internalFailure, "\($0)") }) {
                agent, peer, frame in
                try agent.label(frame, from: peer)
            },
            // Which windows are covered is no secret from the person at the screen.
            .on(PresenterMethods.covered, errors: { $0 as? ServiceError ?? ServiceError(.malformedMessage, "\($0)") }) {
                agent, _, frame in
                try BundleIdentifier.validate(frame.client)
                return agent.covered { $0() }
            },
        ],
        unknown: { method in
            ServiceError(
                .unknownMethod, Phrase("the agent knows no request {method}", context: "service", ["method": method]))
        })

    private func label(_ frame: RequestFrame<LabelRequest>, from peer: ServicePeer) throws -> Empty {
        let contents = try host.withService { try $0.labelContents(client: frame.client, frame.body.token) }
        try labels {
            try $0.show(
                contents, style: frame.body.style, inWindow: frame.body.window, of: peer.credentials?.pid,
                app: frame.client)
        }
        return Empty()
    }

    private func rulesRequest(_ frame: Data, id: UInt64, method: String, from peer: ServicePeer) {
        if let user = (try? ServiceMethod<RulesUser, Empty>(method).request(from: frame))?.body.user, user != userName {
            // swift-format-ignore
            return peer.send(
                errorLine(
                    id: id,
                    ServiceError(
                        .unauthorized,
                        Phrase("this agent keeps {owner}'s own rules; a managed user's rules are kept by the system daemon (is {user} managed? `screenward child list`)", context: "service", ["owner": userName, "user": user]))))
        }
        guard let rules else { return peer.send(errorLine(id: id, ServiceError(.internalFailure, problem))) }
        if let reply = rules.handle(frame: frame, actor: userName, mayChange: true) { peer.send(reply) }
    }

    func disconnected(_ peer: ServicePeer) {
        access { $0.disconnected(peer) }
        host.disconnected(peer)
    }
    func refused(_ peer: ServicePeer, because reason: String) { host.refused(peer, because: reason) }
}

/// Just whose rules a request is about.
private struct RulesUser: Codable, Sendable {
    var user: String?
}
