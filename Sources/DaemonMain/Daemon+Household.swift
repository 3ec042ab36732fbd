import Foundation
import Household
@_spi(Screenward) import ScreenwardCore
import ScreenwardIPC

/// `screenward household`, answered once the household's database has (off the loop).
/// Root alone makes, joins and leaves a household; guardians make join codes and read its
/// status.
extension Daemon {
    static let householdRoutes: [ServiceRoutes<Daemon, DaemonRequest>.Route] = [
        .on(HouseholdMethods.create, errors: householdError) { daemon, request, frame, pending in
            let actor = try daemon.requireRoot(request.peer, doing: "household create")
            let peer = request.peer
            daemon.household.create(frame.body, by: actor) { created, error in
                peer.send(pending.line(Daemon.result(created, error)))
            }
        },
        .on(HouseholdMethods.join, errors: householdError) { daemon, request, frame, pending in
            _ = try daemon.requireRoot(request.peer, doing: "household join")
            let peer = request.peer
            daemon.household.join(frame.body) { status, error in peer.send(pending.line(Daemon.result(status, error))) }
        },
        .on(HouseholdMethods.leave, errors: householdError) { daemon, request, _, pending in
            _ = try daemon.requireRoot(request.peer, doing: "household leave")
            let peer = request.peer
            try daemon.household.leave { error in peer.send(pending.line(Daemon.result(Empty(), error))) }
        },
        .on(HouseholdMethods.invite, errors: householdError) { daemon, request, _, pending in
            let actor = try daemon.requireGuardian(request.peer, doing: "household invite")
            let peer = request.peer
            try daemon.household.invite(by: actor) { invitation, error in
                peer.send(pending.line(Daemon.result(invitation, error)))
            }
        },
        .on(HouseholdMethods.status, errors: householdError) { daemon, request, _, pending in
            _ = try daemon.requireGuardian(request.peer, doing: "household status")
            let peer = request.peer
            var waiting: [String: Int] = [:]
            for owner in daemon.owners.values {
                waiting[owner.user.name] = (try? owner.ledger.intervalsToUpload().count) ?? 0
            }
            try daemon.household.status(waiting: waiting) { status, error in
                peer.send(pending.line(Daemon.result(status, error)))
            }
        },
    ]

    /// The household's sync for the managed people here, by name, with their ledgers.
    func householdChildren() -> [HouseholdSync.Child] {
        let state = state
        return owners.map { uid, owner in
            HouseholdSync.Child(name: owner.user.name, ledger: owner.ledger) { after, since, limit in
                try state.events(uid: uid, after: after, since: since, limit: limit)
            }
        }
    }

    /// A child's other computers' usage read: their owner counts it, and their engine runs.
    func deliverElsewhere(child: String, _ intervals: [ElsewhereInterval]) {
        guard let (uid, owner) = owners.first(where: { $0.value.user.name == child }) else { return }
        owner.stack.useElsewhere(intervals)
        engines[uid]?.run()
    }

    /// The household's rules of a child, changed on another computer: made theirs here, and
    /// recorded for their guardians.
    func adoptHouseholdRules(_ child: String, _ version: Int64, _ shared: HouseholdRules) {
        guard let (uid, owner) = owners.first(where: { $0.value.user.name == child }), let app = rules.app(for: uid)
        else { return }
        do {
            if try app.adoptHouseholdRules(shared) {
                let values = ["child": child, "version": String(version)]
                // swift-format-ignore
                let what = Phrase("took the household's rules of {child} (version {version}), changed on another computer", context: "event", values)
                try state.record(
                    ChildEvent(at: Date(), kind: .rulesChanged, actor: "screenward-daemon", phrase: what), uid: uid)
            }
            try owner.ledger.setHouseholdRulesState(version: version, rules: shared)
        } catch {
            log.error("could not take the household's rules of \(child): \(error)")
        }
        engines[uid]?.run()
    }

    /// A guardian here answers a request asked on another computer of the household: the
    /// answer goes to the database, and that computer applies it as if given there.
    func answerElsewhere(_ answer: RequestAnswer, on computer: String, id: UInt64, from peer: ServicePeer) {
        let access: RulesAccess
        do {
            access = try service.rulesAccess(peer, user: answer.user, changing: true, action: "request answer")
        } catch {
            return peer.send(errorLine(id: id, ChildModeService.serviceError(error)))
        }
        guard access.mayChange else {
            let refusal = ServiceError(
                .unauthorized, Phrase("only a guardian can answer a request", context: "household"))
            return peer.send(errorLine(id: id, refusal))
        }
        guard let sync = household.sync else {
            let refusal = ServiceError(
                .invalidArgument,
                Phrase(
                    "this computer is in no household: there is no computer {computer}", context: "household",
                    ["computer": computer]))
            return peer.send(errorLine(id: id, refusal))
        }
        guard
            let request = sync.requests(elsewhereOf: access.user).first(where: {
                $0.request.computer == computer && $0.request.id == answer.id
            })
        else {
            // swift-format-ignore
            let refusal = ServiceError(.invalidArgument, Phrase("there is no request {id} of {user} on {computer} (screenward request list)", context: "household", ["id": String(answer.id), "user": access.user, "computer": computer]))
            return peer.send(errorLine(id: id, refusal))
        }
        let guardian = access.actor
        let values: [String: any PhraseFilling] = ["user": access.user, "id": String(answer.id), "computer": computer]
        // swift-format-ignore
        let said =
            answer.approve
            ? Phrase("Approved {user}'s request {id} on {computer}; it takes effect there within a second.", context: "household", values)
            : Phrase("Denied {user}'s request {id} on {computer}; it takes effect there within a second.", context: "household", values)
        Task.detached {
            do {
                try await sync.answer(request, approve: answer.approve, seconds: answer.seconds, by: guardian)
                peer.send(RulesMethods.answer.replyFrame(id: id, .success(RuleOutcome(said))))
            } catch {
                peer.send(errorLine(id: id, Daemon.householdError(error)))
            }
        }
    }

    /// An answer given on another computer to a request asked here: applied as if given here.
    func applyElsewhereAnswer(child: String, _ answer: ElsewhereAnswer) {
        guard let (uid, _) = owners.first(where: { $0.value.user.name == child }), let app = rules.app(for: uid)
        else { return }
        guard answer.byHouseholdGuardian else {
            let values = ["id": "\(answer.requestID)", "guardian": answer.actor]
            // swift-format-ignore
            let what = Phrase("an answer to request {id} from {guardian} was not applied: they are not one of that computer's guardians as it told the household", context: "event", values)
            log.warning("\(child): \(what)")
            try? state.record(
                ChildEvent(at: Date(), kind: .refused, actor: "screenward-daemon", phrase: what), uid: uid)
            return
        }
        do {
            let outcome = try app.answerRequest(
                answer.requestID, approve: answer.approve, seconds: answer.seconds, by: answer.actor)
            log.info("\(child): \(outcome.message)")
        } catch {
            log.warning("\(child): the answer from \(answer.actor) to request \(answer.requestID): \(error)")
        }
        engines[uid]?.run()
        household.rulesChanged()
    }

    /// Extra time given to a child on another computer, kept in their ledger: their rules
    /// app counts it, and their engine runs.
    func countExtraTimeElsewhere(child: String, _ grants: [SharedExtraTime]) {
        guard let (uid, _) = owners.first(where: { $0.value.user.name == child }), let app = rules.app(for: uid)
        else { return }
        do {
            try app.extraTimeGivenElsewhere(grants)
        } catch {
            log.error("\(child): could not count the extra time given on another computer: \(error)")
        }
        engines[uid]?.run()
    }

    /// Guardians on other computers made children managed or not: followed here where this
    /// computer has an account of that name (docs/household.md).
    func followHouseholdChildren(_ changes: [HouseholdChildChange]) {
        for change in changes {
            do {
                if let done = try service.followHousehold(
                    change.name, managed: change.managed, actor: change.actor, at: change.at)
                {
                    log.info("household: \(done)")
                }
            } catch {
                log.error("household: could not follow \(change.actor) on \(change.name): \(error)")
            }
        }
    }

    /// Root alone; a managed user's attempt is refused and recorded for their guardians.
    private func requireRoot(_ peer: ServicePeer, doing action: String) throws -> String {
        let caller = try service.caller(peer)
        if caller.role == .managed { _ = try service.guardian(caller, doing: action) }
        guard caller.account.uid == 0 else {
            throw ServiceError(
                .unauthorized,
                Phrase("only root can do this ({action}): run it with sudo", context: "household", ["action": action]))
        }
        return caller.account.name
    }

    /// A guardian; a managed user's attempt is refused and recorded for their guardians.
    private func requireGuardian(_ peer: ServicePeer, doing action: String) throws -> String {
        try service.guardian(try service.caller(peer), doing: action).name
    }

    private static func result<Value>(_ value: Value?, _ error: (any Error)?) -> Result<Value, ServiceError> {
        if let value, error == nil { return .success(value) }
        let silence = HouseholdError(Phrase("the household's database did not answer", context: "household"))
        return .failure(householdError(error ?? silence))
    }

    static func householdError(_ error: any Error) -> ServiceError {
        switch error {
        case let error as ServiceError: error
        case let error as HouseholdError: ServiceError(.invalidArgument, error.phrase)
        case let error as DaemonStateError: ChildModeService.serviceError(error)
        default: ServiceError(.invalidArgument, HouseholdError.describing(error).phrase)
        }
    }
}
