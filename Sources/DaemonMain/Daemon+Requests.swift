@_spi(Screenward) import DeviceActivity
@_spi(Screenward) import FamilyControls
import Foundation
@_spi(Screenward) import ScreenwardCore
import ScreenwardIPC

/// The daemon's requests: its own (agents attaching, guardians' answers and actions,
/// locking, reports), then the rules', the guardians' management, and the managed users'
/// Screen Time API requests, each routed to the table that answers it.
extension Daemon {
    /// One line from a peer.
    func received(_ frame: Data, from peer: ServicePeer) {
        guard let head = try? FrameHead.decode(from: frame) else { return }
        if let kind = head.push {
            if kind == AppProof.push.name {
                apps.proofReceived(frame, from: peer)
            } else if kind == AgentLinkMethods.askShieldExtension.name
                || kind == AgentLinkMethods.cancelShieldQuestion.name
            {
                relayShieldQuestion(kind, frame, from: peer)
            } else {
                sessions.received(push: kind, frame: frame, from: peer)
            }
            return
        }
        guard let id = head.id, let method = head.method else { return }
        log.debug("\(peer): \(method)")
        if Self.routes.answers(method) {
            var request = DaemonRequest(peer: peer)
            if let line = Self.routes.reply(to: frame, by: self, &request)?.line { peer.send(line) }
            if let attachment = request.attached { agentAttached(peer, attachment) }
        } else if RulesMethods.answers(method) {
            rulesRequest(frame, id: id, method: method, from: peer)
        } else if ChildModeService.answers(method) {
            if let reply = service.handle(frame: frame, from: peer) { peer.send(reply) }
        } else {
            screenTimeRequest(frame, id: id, from: peer)
        }
    }

    /// What one of the daemon's own requests carries besides its body.
    struct DaemonRequest {
        let peer: ServicePeer
        /// The agent that attached, once its reply is sent.
        var attached: AgentAttachment?
    }

    static let routes = ServiceRoutes<Daemon, DaemonRequest>(
        [
            .on(AgentLinkMethods.attach, errors: { $0 as? ServiceError ?? ServiceError(.internalFailure, "\($0)") }) {
                daemon, request, frame in
                let attachment = try daemon.sessions.attach(frame.body, from: request.peer)
                request.attached = attachment
                return attachment
            },
            // The guardian's answer from a dialog: only an attached agent of the child's session may send it.
            .on(AgentLinkMethods.answerGuardian, errors: ChildModeService.serviceError) {
                daemon, request, frame, pending in
                let peer = request.peer
                guard let uid = daemon.sessions.agentUser(peer) else {
                    daemon.log.warning("\(peer) sent a guardian's answer without being an attached agent: refused")
                    throw ServiceError(
                        .unauthorized, Phrase("only a managed session's agent may answer", context: "daemon"))
                }
                daemon.apps.approvals.answer(frame.body, fromAgentOf: uid) { verdict in
                    peer.send(pending.line(.success(verdict)))
                }
            },
            // What waits for a guardian, listed and answered from a guardian's own account.
            .on(ChildMethods.waitingAsks, errors: ChildModeService.serviceError) { daemon, request, frame in
                let caller = try daemon.service.caller(request.peer)
                let uids: Set<UInt32>?
                switch caller.role {
                case .guardian:
                    uids = frame.body.user.map { name in
                        Set(daemon.owners.values.filter { $0.user.name == name }.map(\.user.uid))
                    }
                case .managed: uids = [caller.account.uid]
                case .unmanaged:
                    _ = try daemon.service.guardian(caller, doing: "request list")
                    uids = []
                }
                return daemon.apps.approvals.waiting(of: uids, language: frame.body.language)
            },
            .on(ChildMethods.answerAsk, errors: ChildModeService.serviceError) { daemon, request, frame in
                let answer = frame.body
                let guardian = try daemon.service.guardian(
                    try daemon.service.caller(request.peer),
                    doing: "request \(answer.approve ? "approve" : "deny") a\(answer.id)")
                try daemon.apps.approvals.answer(answer.id, approve: answer.approve, byGuardian: guardian.name)
                return Empty()
            },
            .on(DaemonAddress.placementMethod, errors: ChildModeService.serviceError) { daemon, request, _ in
                // An extension the daemon started is served here, as its managed user's apps are.
                let peer = request.peer
                return AccountPlacement(
                    managed: (try? daemon.service.caller(peer))?.role == .managed || daemon.launch(of: peer) != nil)
            },
            .on(ChildMethods.lock, errors: ChildModeService.serviceError) { daemon, request, frame in
                let name = frame.body.user
                let access = try daemon.service.rulesAccess(
                    request.peer, user: name, changing: true, action: "child lock \(name)")
                return daemon.sessions.lockSessions(of: access.uid, by: access.actor)
            },
            .on(ReportMethods.run, errors: ChildModeService.serviceError) { daemon, request, frame, pending in
                try daemon.runReport(frame.body, for: request.peer, pending)
            },
            .on(RulesMethods.guardianAction, errors: ChildModeService.serviceError) {
                daemon, request, frame, pending in
                try daemon.guardianAction(frame.body, from: request.peer, pending)
            },
        ] + householdRoutes,
        unknown: { method in
            ServiceError(
                .unknownMethod,
                Phrase("the daemon does not know the method {method}", context: "daemon", ["method": method]))
        })

    /// An agent attached: it is told its shields, questions and browsers, and its
    /// guardians' dialogs can come up.
    private func agentAttached(_ peer: ServicePeer, _ attachment: AgentAttachment) {
        programGuard.agentAttached(peer, uid: attachment.uid)
        sessions.sendShields(to: peer)
        owners[attachment.uid]?.shieldRelay.tell([peer]).forEach { $0.send() }
        owners[attachment.uid]?.browserTabsLines(to: [peer]).forEach { $0.send() }
        apps.approvals.agentAttached(uid: attachment.uid)
    }

    /// An app's report drawn by its extension for a managed user: the child's own, or a
    /// guardian's for a child they name. The data is gathered here; the extension runs
    /// (up to 10 s) on a thread of its own, as the extensions' user, with no network.
    private func runReport(_ request: ReportRunRequest, for peer: ServicePeer, _ pending: PendingReply<ReportRendering>)
        throws
    {
        let run: AppReportRun
        do {
            let owner = try reportOwner(request, for: peer)
            guard let extensions else {
                // swift-format-ignore
                throw ServiceError(.unsupported, Phrase("apps' extensions are not started on this computer: there is no user to run them as (the screenward package or scripts/install.sh creates it)", context: "daemon"))
            }
            let (installed, launcher) = try extensions.reportRun(for: owner.user.uid, app: request.app)
            run = AppReportRun(
                data: owner.appReportData(calendar: timeZone.calendar(), language: "en"), installed: installed,
                launcher: launcher)
        }
        let log = log
        Thread.detachNewThread {
            let result = Result { try run.run(request, now: Date()) }.mapError(ChildModeService.serviceError)
            switch result {
            case .success:
                log.info(
                    """
                    reports: \(request.app)'s report extension drew \
                    \"\(request.context.rawValue)\" for \(request.user ?? "its user") (no network)
                    """
                )
            case .failure(let error): log.warning("reports: \(error.message)")
            }
            peer.send(pending.line(result))
        }
    }

    /// Whose data an app's report draws. The window a session's agent shows for an app
    /// (`report.present`) names it by its ticket; a guardian names a managed user; a managed
    /// user's own programs get no app's drawn report: an app could ask for its own and read
    /// back what its extension drew (their own built-in report is `child.report`).
    private func reportOwner(_ request: ReportRunRequest, for peer: ServicePeer) throws -> ManagedUserOwner {
        if let ticket = request.ticket {
            guard peer.credentials?.uid == agentUID, let shown = apps.reportShown(ticket: ticket),
                shown.app == request.app, let owner = owners[shown.uid]
            else {
                // swift-format-ignore
                throw ServiceError(.unauthorized, Phrase("this report window's ticket is not the daemon's, or its window was closed", context: "daemon"))
            }
            return owner
        }
        if request.user == nil, (try? service.caller(peer))?.role == .managed {
            // swift-format-ignore
            throw ServiceError(.unauthorized, Phrase("an app's report is shown in Screenward's own window (the app calls DeviceActivityReport.present()), and is handed to no program of yours", context: "daemon"))
        }
        return try service.readableOwner(request.user, on: peer, reading: .reports)
    }

    /// A rules request: a guardian's for a managed user (named), a managed user's own to read.
    func rulesRequest(_ frame: Data, id: UInt64, method: String, from peer: ServicePeer) {
        struct Whose: Codable, Sendable { var user: String? }
        let user = (try? ServiceMethod<Whose, Empty>(method).request(from: frame))?.body.user
        let changing = !RulesMethods.reading.contains(method)
        // A guardian's list of requests: every managed user's (or the one named), with those
        // asked on the household's other computers.
        if method == RulesMethods.requests.name, (try? service.caller(peer))?.role == .guardian {
            var all: [TimeRequest] = []
            for (uid, owner) in owners.sorted(by: { $0.value.user.name < $1.value.user.name })
            where user == nil || owner.user.name == user {
                for var request in (try? rules.app(for: uid)?.requests()) ?? [] {
                    request.user = owner.user.name
                    all.append(request)
                }
                for elsewhere in household.sync?.requests(elsewhereOf: owner.user.name) ?? [] {
                    var request = elsewhere.request
                    request.user = owner.user.name
                    all.append(request)
                }
            }
            return peer.send(RulesMethods.requests.replyFrame(id: id, .success(all)))
        }
        // A guardian's answer to a request asked on another computer of the household.
        if method == RulesMethods.answer.name,
            let answer = try? RulesMethods.answer.request(from: frame).body, let computer = answer.computer,
            computer != household.sync?.membership.computerName
        {
            return answerElsewhere(answer, on: computer, id: id, from: peer)
        }
        let access: RulesAccess
        do {
            access = try service.rulesAccess(
                peer, user: user, changing: changing, action: method.replacingOccurrences(of: ".", with: " "))
        } catch {
            return peer.send(errorLine(id: id, ChildModeService.serviceError(error)))
        }
        if let refusal = household.refusal(ofChanging: method) { return peer.send(errorLine(id: id, refusal)) }
        guard let app = rules.app(for: access.uid) else {
            return peer.send(
                errorLine(
                    id: id,
                    ServiceError(
                        .internalFailure,
                        Phrase(
                            "{user}'s rules are not running; the daemon's log says why", context: "daemon",
                            ["user": access.user]))))
        }
        guard let reply = app.handle(frame: frame, actor: access.actor, mayChange: access.mayChange) else { return }
        peer.send(reply)
        if changing { household.rulesChanged() }
        // A request's answer is recorded as such by the rules themselves.
        if changing, method != RulesMethods.answer.name, let outcome = try? RulesMethods.add.reply(from: reply) {
            // What the rules said of the change is what the guardians' record says (as written,
            // for a guardian reading in another language).
            let event =
                outcome.phrase.map { ChildEvent(at: Date(), kind: .rulesChanged, actor: access.actor, phrase: $0) }
                ?? ChildEvent(at: Date(), kind: .rulesChanged, actor: access.actor, detail: outcome.message)
            do {
                try state.record(event, uid: access.uid)
            } catch {
                log.error("could not record a change of \(access.user)'s rules: \(error)")
            }
        }
    }

    /// The managed user and app of an extension the daemon started, by the connection's pid.
    func launch(of peer: ServicePeer) -> DaemonExtensions.Launch? {
        guard let extensions, let credentials = peer.credentials, credentials.uid == extensions.uid else { return nil }
        return extensions.launch(of: credentials.pid)
    }

    /// A request of an extension the daemon started: served by its managed user's owner as
    /// the app it was started for (and only that app). An extension neither asks for nor
    /// gives up authorization: that is the app's, with a guardian.
    func extensionRequest(_ frame: Data, id: UInt64, method: String, client: String?, from peer: ServicePeer) {
        func refuse(_ why: Phrase) { peer.send(errorLine(id: id, ServiceError(.unauthorized, why))) }
        guard let launch = extensionPeers[peer] ?? launch(of: peer), let owner = owners[launch.uid] else {
            return refuse(Phrase("this connection is not an extension the daemon started", context: "daemon"))
        }
        extensionPeers[peer] = launch
        guard client == launch.app else {
            if let pid = peer.credentials?.pid {
                extensions?.misbehaved(
                    pid: pid, "it spoke as \(client ?? "no app") though it was started for \(launch.app)")
            }
            return refuse(Phrase("this extension was started for {app}", context: "daemon", ["app": launch.app]))
        }
        if method == AccessMethods.list.name {
            return refuse(Phrase("an app does not learn which apps hold Screen Time access", context: "daemon"))
        }
        if method == AuthorizationMethods.request.name || method == AuthorizationMethods.revoke.name {
            // swift-format-ignore
            return refuse(Phrase("an extension cannot ask for or give up authorization: its app does, with a guardian", context: "daemon"))
        }
        owner.service.handle(frame: frame, from: peer).forEach { $0.send() }
        appsHeard(uid: launch.uid)
    }

    /// A Screen Time API request: only managed users' apps have their owner here.
    func screenTimeRequest(_ frame: Data, id: UInt64, from peer: ServicePeer) {
        if let extensions, peer.credentials?.uid == extensions.uid, let head = try? FrameHead.decode(from: frame),
            let method = head.method
        {
            return extensionRequest(frame, id: id, method: method, client: head.client, from: peer)
        }
        let caller: ChildModeService.Caller
        do {
            caller = try service.caller(peer)
        } catch {
            return peer.send(errorLine(id: id, ChildModeService.serviceError(error)))
        }
        if let name = apps.actingFor(peer) {
            return guardiansAppRequest(frame, id: id, for: name, caller: caller, from: peer)
        }
        guard caller.role == .managed else {
            // swift-format-ignore
            let refusal = ServiceError(.unauthorized, Phrase("the system daemon owns the limits of managed accounts only; {user}'s own agent (screenward-agent) is the Screen Time API's owner for this account", context: "daemon", ["user": caller.account.name]))
            return peer.send(errorLine(id: id, refusal))
        }
        apps.handle(frame: frame, from: peer, user: caller.account).forEach { $0.send() }
        appsHeard(uid: caller.account.uid)
        scheduleAskExpiry()
    }

    /// A guardian's own copy of an app, run for managed user `name` (`screenward app run
    /// --user`): served as that user's app, with the guardian's word for what it changes.
    private func guardiansAppRequest(
        _ frame: Data, id: UInt64, for name: String, caller: ChildModeService.Caller, from peer: ServicePeer
    ) {
        let child: Account
        do {
            _ = try service.guardian(caller, doing: "app run --user \(name)")
            guard let owner = owners.values.first(where: { $0.user.name == name }) else {
                throw ServiceError(
                    .invalidArgument, Phrase("{user} is not a managed user", context: "daemon", ["user": name]))
            }
            child = Account(name: owner.user.name, uid: owner.user.uid, gid: 0, groups: [])
        } catch {
            return peer.send(errorLine(id: id, ChildModeService.serviceError(error)))
        }
        apps.handle(frame: frame, from: peer, user: child, guardian: caller.account.name).forEach { $0.send() }
        appsHeard(uid: child.uid)
    }

    /// After a managed user's app was heard from (or went): the engine may have work,
    /// and the agents may have extension answers or news of extensions.
    func appsHeard(uid: UInt32) {
        // A lie (a token never given) is only refused from the child's own programs; an
        // extension the daemon started is stopped for it too.
        for lie in owners[uid]?.service.takeLies() ?? [] {
            if let extensions, let credentials = lie.peer.credentials, credentials.uid == extensions.uid {
                extensions.misbehaved(pid: credentials.pid, "it used a token it was never given: \(lie.what)")
            }
        }
        engines[uid]?.run()
        owners[uid]?.shieldRelay.afterApps(agents: sessions.agents(of: uid)).forEach { $0.send() }
        owners[uid]?.afterBrowsers(agents: sessions.agents(of: uid)).forEach { $0.send() }
    }

    /// An agent's question for an app's shield extension, or its cancellation: only an
    /// attached agent asks, and only about its own user's apps.
    func relayShieldQuestion(_ kind: String, _ frame: Data, from agent: ServicePeer) {
        guard let uid = sessions.agentUser(agent), let relay = owners[uid]?.shieldRelay else {
            return log.warning("\(agent) sent \(kind) without being an attached agent: ignored")
        }
        if kind == AgentLinkMethods.askShieldExtension.name,
            let question = try? AgentLinkMethods.askShieldExtension.body(from: frame)
        {
            let (deliveries, startAction) = relay.ask(question, from: agent)
            deliveries.forEach { $0.send() }
            if startAction { extensions?.wantShieldExtension(.shieldAction, of: question.owner, uid: uid) }
        } else if let cancel = try? AgentLinkMethods.cancelShieldQuestion.body(from: frame) {
            relay.cancel(cancel, from: agent)
        }
    }

    /// A managed user's tray asks for a guardian's action at their desktop: the guardian's
    /// dialog comes up in the session (as for an app's `.child`), and the action is done
    /// once a guardian's one-time code approved it. The reply waits for that.
    private func guardianAction(
        _ request: GuardianActionRequest, from peer: ServicePeer, _ pending: PendingReply<RuleOutcome>
    ) throws {
        do {
            let access = try service.rulesAccess(
                peer, user: request.user, changing: false, action: "rules guardian-action")
            guard !access.mayChange else {
                // swift-format-ignore
                throw ServiceError(.invalidArgument, Phrase("a guardian does this with `screenward request approve`, `screenward pause` or `screenward child lock`", context: "daemon"))
            }
            let rulesApp = InstalledApp(
                bundleIdentifier: RulesApp.bundleIdentifier, displayName: "Screenward", executables: [])
            try apps.approvals.begin(
                .rules, app: rulesApp, child: access.user, uid: access.uid, requester: peer,
                action: request.action
            ) {
                [unowned self] outcome in
                let result = Result<RuleOutcome, any Error> {
                    switch outcome {
                    case .notApproved(let why):
                        throw ServiceError(
                            .unauthorized, Phrase("not approved: {why}", context: "daemon", ["why": why]))
                    case .approved(let guardian):
                        guard let app = rules.app(for: access.uid) else {
                            throw ServiceError(
                                .internalFailure,
                                Phrase("{user}'s rules are not running", context: "daemon", ["user": access.user]))
                        }
                        switch request.action {
                        case .lockNow:
                            let locked = sessions.lockSessions(of: access.uid, by: guardian)
                            return RuleOutcome(
                                locked == 1
                                    ? Phrase("Locked {count} session.", context: "daemon", ["count": String(locked)])
                                    : Phrase("Locked {count} sessions.", context: "daemon", ["count": String(locked)]))
                        case .pauseForAnHour:
                            return try app.pause(for: 3600, by: guardian)
                        case .add15Minutes, .add1Hour, .addRestOfDay:
                            return try app.giveExtraTime(request.action.extraTime ?? nil, by: guardian)
                        }
                    }
                }
                peer.send(pending.line(result.mapError(ChildModeService.serviceError)))
                appsHeard(uid: access.uid)
            }
            scheduleAskExpiry()
        }
    }
}
