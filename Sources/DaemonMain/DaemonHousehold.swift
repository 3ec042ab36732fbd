import Foundation
import GLibRuntime
import Household
@_spi(Screenward) import ScreenwardCore
import ScreenwardIPC

/// The daemon's part in a household (docs/household.md): the sync of its managed people's
/// usage with the household's database, and `screenward household`. The sync runs on a task
/// of its own; what it reads comes onto the loop through a mailbox, where each child's owner
/// takes it and their engine runs again.
final class DaemonHousehold {
    let files: HouseholdFiles
    private(set) var sync: HouseholdSync?
    private let log: DaemonLog
    /// What the sync read, on its way to the loop.
    private enum Arrival: Sendable {
        /// A child's (by name) other computers' usage.
        case usage(String, [ElsewhereInterval])
        /// The household's rules of a child, at a version newer than this computer's.
        case rules(String, version: Int64, HouseholdRules)
        /// An answer given on another computer to a child's request asked here.
        case answer(String, ElsewhereAnswer)
        /// Extra time given to a child on other computers, just kept in their ledger.
        case extraTime(String, [SharedExtraTime])
        /// Children a guardian on another computer made managed or not.
        case children([HouseholdChildChange])
    }
    private var arrivals: LoopMailbox<Arrival>!
    private var memberships: LoopMailbox<HouseholdMembership?>!
    /// Hands a child's other computers' usage to their owner.
    var deliver: (String, [ElsewhereInterval]) -> Void = { _, _ in }
    /// Makes a child's rules the household's version `version`; returns when done.
    var adopt: (String, Int64, HouseholdRules) -> Void = { _, _, _ in }
    /// Applies an answer given on another computer to a child's request.
    var applyAnswer: (String, ElsewhereAnswer) -> Void = { _, _ in }
    /// Counts extra time given to a child on other computers.
    var countExtraTime: (String, [SharedExtraTime]) -> Void = { _, _ in }
    /// Follows guardians on other computers making children managed or not.
    var followChildren: ([HouseholdChildChange]) -> Void = { _ in }
    /// The managed people here, with their ledgers.
    var children: () -> [HouseholdSync.Child] = { [] }
    /// This computer's guardians by name (root, and its guardian group's members), asked from
    /// the sync's task.
    var guardians: @Sendable () -> [String] = { ["root"] }

    init(stateDirectory: URL, log: DaemonLog) {
        files = HouseholdFiles(stateDirectory: stateDirectory)
        self.log = log
        arrivals = LoopMailbox { [unowned self] arrivals in
            for arrival in arrivals {
                switch arrival {
                case .usage(let child, let intervals): deliver(child, intervals)
                case .rules(let child, let version, let rules):
                    adopt(child, version, rules)
                    sync?.adopted(child: child)
                case .answer(let child, let answer): applyAnswer(child, answer)
                case .extraTime(let child, let grants): countExtraTime(child, grants)
                case .children(let changes): followChildren(changes)
                }
            }
        }
        memberships = LoopMailbox { [unowned self] changes in
            for membership in changes { use(membership) }
        }
    }

    /// Starts the sync when this computer is in a household.
    func start() {
        do {
            if let membership = try files.membership() { use(membership) }
            // On the computer that holds the database, a newer Screenward brings its schema up to date.
            if let owner = try files.ownerLogin() {
                let log = log
                Task.detached {
                    do {
                        try await HouseholdSetup.upgrade(owner)
                    } catch {
                        log.error("the household's database could not be brought up to date: \(error)")
                    }
                }
            }
        } catch {
            log.error("the household's sync is not running: \(error)")
        }
    }

    func stop() {
        sync?.stop()
    }

    /// The managed people changed: the sync exchanges theirs.
    func childrenChanged() {
        sync?.setChildren(children())
    }

    /// The rules' changes the household shares, and refuses while its database cannot be
    /// reached (docs/household.md). Extra time and answers are given here at once and shared
    /// when the database is back; pauses stay this computer's.
    static let sharedRuleChanges: Set<String> = [
        RulesMethods.add.name, RulesMethods.change.name, RulesMethods.remove.name, RulesMethods.allow.name,
        RulesMethods.disallow.name,
    ]

    /// Why a guardian's change of the rules is refused now: the household's rules can be
    /// changed only while its database can be reached (two computers apart would each keep
    /// a version of their own).
    func refusal(ofChanging method: String) -> ServiceError? {
        guard Self.sharedRuleChanges.contains(method), let sync, let problem = sync.currentProblem else { return nil }
        // swift-format-ignore
        return ServiceError(.unsupported, Phrase("the rules are the household's, and its database cannot be reached ({problem}): change them when it is back, or on another computer of the household", context: "household", ["problem": problem]))
    }

    /// Why who is managed cannot be changed now: in a household, it holds on every computer,
    /// which must hear of it.
    func refusalOfManaging() -> ServiceError? {
        guard let sync, let problem = sync.currentProblem else { return nil }
        // swift-format-ignore
        return ServiceError(.unsupported, Phrase("who is managed is the household's, and its database cannot be reached ({problem}): change it when it is back, or on another computer of the household", context: "household", ["problem": problem]))
    }

    /// A guardian here made a user managed or not: the household hears of it.
    func publishChild(_ name: String, managed: Bool, by guardian: String) {
        guard let sync else { return }
        let log = log
        Task.detached {
            do {
                try await sync.publishChild(name, managed: managed, by: guardian)
            } catch {
                log.warning("household: \(name) \(managed ? "managed" : "no longer managed") here only: \(error)")
            }
        }
    }

    /// A guardian changed rules here: the sync publishes them.
    func rulesChanged() {
        sync?.usageRecorded()
    }

    /// A managed person's ledger was written (usage): the sync sends it once it is.
    func usageRecorded(in owner: ManagedUserOwner) {
        guard let sync else { return }
        owner.stack.sink.write { _ in sync.usageRecorded() }
    }

    private func use(_ membership: HouseholdMembership?) {
        sync?.stop()
        sync = nil
        guard let membership else { return log.info("this computer is in no household") }
        let log = log
        let arrivals = arrivals!
        let sync = HouseholdSync(
            membership: membership,
            delivered: { child, intervals in arrivals.post(.usage(child, intervals)) },
            adopt: { child, version, rules in arrivals.post(.rules(child, version: version, rules)) },
            answered: { child, answer in arrivals.post(.answer(child, answer)) },
            extraTimeGiven: { child, grants in arrivals.post(.extraTime(child, grants)) },
            childrenChanged: { changes in arrivals.post(.children(changes)) },
            guardians: guardians,
            report: { problem in
                if let problem {
                    log.warning("household: \(problem); enforcing from what this computer knew last")
                } else {
                    log.info("household: in step with the database at \(membership.login.place)")
                }
            })
        self.sync = sync
        sync.setChildren(children())
        sync.start()
        log.info("household: this computer is \(membership.computerName) at \(membership.login.place)")
    }

    // MARK: `screenward household`

    func create(
        _ request: HouseholdCreateRequest, by actor: String,
        _ done: @escaping @Sendable (HouseholdCreated?, (any Error)?) -> Void
    ) {
        let files = files
        let memberships = memberships!
        let name = request.computerName ?? Self.hostName()
        Task.detached {
            do {
                let created = try await HouseholdSetup.create(request, computerName: name, madeBy: actor, files: files)
                memberships.post(try files.membership())
                done(created, nil)
            } catch {
                done(nil, error)
            }
        }
    }

    func join(_ request: HouseholdJoinRequest, _ done: @escaping @Sendable (HouseholdStatus?, (any Error)?) -> Void) {
        let files = files
        let memberships = memberships!
        let name = request.computerName ?? Self.hostName()
        Task.detached {
            do {
                let membership = try await HouseholdSetup.join(
                    host: request.host, port: request.port, database: request.database, code: request.code,
                    computerName: name, files: files)
                memberships.post(membership)
                done(try await HouseholdSetup.status(of: membership), nil)
            } catch {
                done(nil, error)
            }
        }
    }

    func invite(by actor: String, _ done: @escaping @Sendable (HouseholdInvitation?, (any Error)?) -> Void) throws {
        let membership = try requireMembership()
        Task.detached {
            do {
                done(try await HouseholdSetup.invite(as: membership.login, madeBy: actor), nil)
            } catch {
                done(nil, error)
            }
        }
    }

    func leave(_ done: @escaping @Sendable ((any Error)?) -> Void) throws {
        let membership = try requireMembership()
        let files = files
        let memberships = memberships!
        Task.detached {
            do {
                try await HouseholdSetup.leave(membership, files: files)
                memberships.post(nil)
                done(nil)
            } catch {
                done(error)
            }
        }
    }

    func status(waiting: [String: Int], _ done: @escaping @Sendable (HouseholdStatus?, (any Error)?) -> Void) throws {
        let membership = try requireMembership()
        let problem = sync?.currentProblem
        Task.detached {
            do {
                var status = try await HouseholdSetup.status(of: membership)
                status.waitingToUpload = waiting
                status.syncProblem = problem?.description
                status.syncProblemPhrase = problem
                done(status, nil)
            } catch {
                done(nil, error)
            }
        }
    }

    private func requireMembership() throws -> HouseholdMembership {
        guard let membership = try files.membership() else {
            // swift-format-ignore
            throw HouseholdError(Phrase("this computer is in no household: `screenward household create` makes one, `screenward household join HOST CODE` joins one", context: "household"))
        }
        return membership
    }

    /// The computer's name when none is given: its host name, without a domain.
    static func hostName() -> String {
        let name = ProcessInfo.processInfo.hostName
        return name.split(separator: ".").first.map(String.init) ?? name
    }
}
