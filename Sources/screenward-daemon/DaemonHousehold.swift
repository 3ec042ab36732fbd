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
    /// A child's other computers' usage, read by the sync.
    private struct Read: Sendable {
        var child: String
        var intervals: [ElsewhereInterval]
    }
    private var reads: LoopMailbox<Read>!
    private var memberships: LoopMailbox<HouseholdMembership?>!
    /// Hands a child's (by name) other computers' usage to their owner.
    var deliver: (String, [ElsewhereInterval]) -> Void = { _, _ in }
    /// Makes a child's (by name) rules the household's version `version`; returns when done.
    var adopt: (String, Int64, HouseholdRules) -> Void = { _, _, _ in }
    /// The household's rules, read by the sync, on their way to the loop.
    private struct Adoption: Sendable {
        var child: String
        var version: Int64
        var rules: HouseholdRules
    }
    private var adoptions: LoopMailbox<Adoption>!
    /// Applies an answer given on another computer to a child's (by name) request.
    var applyAnswer: (String, ElsewhereAnswer) -> Void = { _, _ in }
    private struct Answer: Sendable {
        var child: String
        var answer: ElsewhereAnswer
    }
    private var answers: LoopMailbox<Answer>!
    /// The managed people here, with their ledgers.
    var children: () -> [HouseholdSync.Child] = { [] }

    init(stateDirectory: URL, log: DaemonLog) {
        files = HouseholdFiles(stateDirectory: stateDirectory)
        self.log = log
        reads = LoopMailbox { [unowned self] reads in
            for read in reads { deliver(read.child, read.intervals) }
        }
        adoptions = LoopMailbox { [unowned self] adoptions in
            for adoption in adoptions {
                adopt(adoption.child, adoption.version, adoption.rules)
                sync?.adopted(child: adoption.child)
            }
        }
        answers = LoopMailbox { [unowned self] answers in
            for answer in answers { applyAnswer(answer.child, answer.answer) }
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

    /// The rules' changes the household shares (docs/household.md); extra time, answers to
    /// requests and pauses stay this computer's.
    static let sharedRuleChanges: Set<String> = [
        RulesMethods.add.name, RulesMethods.change.name, RulesMethods.remove.name, RulesMethods.allow.name,
        RulesMethods.disallow.name,
    ]

    /// Why a guardian's change of the rules is refused now: the household's rules can be
    /// changed only while its database can be reached (two computers apart would each keep
    /// a version of their own).
    func refusal(ofChanging method: String) -> ServiceError? {
        guard Self.sharedRuleChanges.contains(method), let sync, let problem = sync.currentProblem else { return nil }
        return ServiceError(
            .unsupported,
            """
            the rules are the household's, and its database cannot be reached (\(problem)): \
            change them when it is back, or on another computer of the household
            """
        )
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
        let reads = reads!
        let adoptions = adoptions!
        let answers = answers!
        let sync = HouseholdSync(
            membership: membership,
            delivered: { child, intervals in reads.post(Read(child: child, intervals: intervals)) },
            adopt: { child, version, rules in
                adoptions.post(Adoption(child: child, version: version, rules: rules))
            },
            answered: { child, answer in answers.post(Answer(child: child, answer: answer)) },
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
                status.syncProblem = problem
                done(status, nil)
            } catch {
                done(nil, error)
            }
        }
    }

    private func requireMembership() throws -> HouseholdMembership {
        guard let membership = try files.membership() else {
            throw HouseholdError(
                """
                this computer is in no household: `screenward household create` makes one, \
                `screenward household join HOST CODE` joins one
                """
            )
        }
        return membership
    }

    /// The computer's name when none is given: its host name, without a domain.
    static func hostName() -> String {
        let name = ProcessInfo.processInfo.hostName
        return name.split(separator: ".").first.map(String.init) ?? name
    }
}
