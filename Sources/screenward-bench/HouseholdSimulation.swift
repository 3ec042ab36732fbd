import Foundation
import Household
@_spi(Screenward) import ManagedSettings
import ScreenwardCore
import SessionHarness
import Synchronization

/// The household benchmark's computers: each a real `HouseholdSync` with its own login to
/// the database and real (in-memory) ledgers for its children, in this process.
final class SimulatedHousehold: Sendable {
    struct Computer: Sendable {
        let name: String
        let sync: HouseholdSync
        /// Its children's ledgers, by name, and the run their intervals are written under.
        let ledgers: [String: (ledger: Ledger, run: Int64)]
    }

    let computers: [Computer]
    /// The child the two measured computers share.
    let measuredChild: String
    private let seen: Seen
    private let load = Mutex<(thread: Thread?, running: Bool)>((nil, false))
    private let writes = Atomic<Int>(0)
    /// Requests asked so far (each is for a rule of its own, so none is the same as another).
    private let asked = Atomic<Int>(0)

    var intervalsWritten: Int { writes.load(ordering: .relaxed) }

    /// What the syncs handed over, with when.
    final class Seen: Sendable {
        /// By "computer index/child": the intervals' keys last handed over.
        let intervals = Mutex<[String: Set<String>]>([:])
        /// By "computer index/child/request": when its answer was handed over.
        let answers = Mutex<[String: Date]>([:])
    }

    private init(computers: [Computer], measuredChild: String, seen: Seen) {
        self.computers = computers
        self.measuredChild = measuredChild
        self.seen = seen
    }

    /// Computer 0 makes the household on `database`; the others join it with codes it makes.
    /// Computer `c` has the children `kid(c·h + j)`, j < `childrenEach`, h = half of them:
    /// each child is on two neighbouring computers.
    /// The PostgreSQL server the household is made on.
    struct Server: Sendable {
        var owner: String
        var socketDirectory: String
        var port: Int
    }

    static func make(computers count: Int, childrenEach: Int, server database: Server, folder: URL) async throws
        -> SimulatedHousehold
    {
        let seen = Seen()
        let half = max(1, childrenEach / 2)
        let pool = count * half
        var computers: [Computer] = []
        var first: HouseholdMembership?
        for index in 0..<count {
            let files = HouseholdFiles(stateDirectory: folder.appendingPathComponent("c\(index)"))
            let membership: HouseholdMembership
            if let first {
                let code = try await HouseholdSetup.invite(as: first.login, madeBy: "bench")
                membership = try await HouseholdSetup.join(
                    host: "127.0.0.1", port: database.port, database: "screenward_household", code: code.code,
                    computerName: "c\(index)", files: files)
            } else {
                _ = try await HouseholdSetup.create(
                    HouseholdCreateRequest(
                        serverOwner: database.owner, socketDirectory: database.socketDirectory, port: database.port,
                        localAddress: "127.0.0.1", database: "screenward_household", computerName: "c0"),
                    computerName: "c0", madeBy: "bench", files: files)
                membership = try files.membership()!
                first = membership
            }
            var made: [String: (ledger: Ledger, run: Int64)] = [:]
            for slot in 0..<childrenEach {
                let ledger = try Ledger()
                let run = try ledger.beginAgentSession(pid: 1, display: ":bench", at: Date()).sessionID
                made["kid\((index * half + slot) % pool)"] = (ledger, run)
            }
            let ledgers = made
            let key = index
            let holder = Mutex<HouseholdSync?>(nil)
            let sync = HouseholdSync(
                membership: membership,
                delivered: { child, intervals in
                    let keys = Set(intervals.map { "\($0.computer)/\($0.ledger)/\($0.remoteID)" })
                    seen.intervals.withLock { $0["\(key)/\(child)"] = keys }
                },
                adopt: { child, version, rules in
                    // As the daemon would: the household's (empty) rules taken, and said so.
                    if let ledger = ledgers[child]?.ledger {
                        _ = try? ledger.replaceRules(with: rules, at: Date())
                        try? ledger.setHouseholdRulesState(version: version, rules: rules)
                    }
                    holder.withLock { $0 }?.adopted(child: child)
                },
                answered: { child, answer in
                    seen.answers.withLock { $0["\(key)/\(child)/\(answer.requestID)"] = Date() }
                },
                extraTimeGiven: { _, _ in },
                report: { _ in })
            holder.withLock { $0 = sync }
            sync.setChildren(ledgers.map { HouseholdSync.Child(name: $0.key, ledger: $0.value.ledger) })
            sync.start()
            computers.append(Computer(name: "c\(index)", sync: sync, ledgers: ledgers))
        }
        return SimulatedHousehold(computers: computers, measuredChild: "kid\(half)", seen: seen)
    }

    func stop() {
        stopLoad()
        for computer in computers { computer.sync.stop() }
    }

    // MARK: Measuring

    /// `samples` of each figure between computers 0 and 1, spaced over `spreadOver` seconds.
    func measure(samples: Int, spreadOver: TimeInterval = 0) throws -> (usage: [Double], approval: [Double]) {
        let (from, to) = (computers[0], computers[1])
        let child = measuredChild
        guard let (ledger, run) = from.ledgers[child], to.ledgers[child] != nil else {
            throw HarnessError.failed("computers 0 and 1 share no child")
        }
        let ledgerID = try ledger.householdLedgerID()
        let identity = AppIdentity(key: .windowClass("Game"), displayName: "Game")
        let token = ApplicationToken(opaqueValue: "bench-game")
        var usage: [Double] = []
        var approval: [Double] = []
        let pause = spreadOver / Double(samples)
        var open: Int64?
        for _ in 0..<samples {
            // Usage: a new interval on computer 0, until computer 1 hands it over.
            if let open { try ledger.closeInterval(open, duration: .seconds(0.5), reason: .focusChange) }
            let written = Date()
            let id = try ledger.openInterval(sessionID: run, app: identity, token: token, startingAt: written)
            open = id
            from.sync.usageRecorded()
            let key = "\(ledgerID)/\(id)"
            usage.append(
                waitMilliseconds(since: written) {
                    seen.intervals.withLock { $0["1/\(child)"]?.contains { $0.hasSuffix(key) } ?? false }
                })

            // Approval: a request on computer 0, listed on 1; answered there, until 0 hands it over.
            let (request, _) = try ledger.askForTime(
                rule: "Games\(asked.add(1, ordering: .relaxed).newValue)", application: "", applicationName: "Game",
                at: Date())
            from.sync.usageRecorded()
            var listed: ElsewhereRequest?
            _ = waitMilliseconds(since: Date()) {
                listed = to.sync.requests(elsewhereOf: child).first {
                    $0.request.id == request.id && $0.request.computer == from.name
                }
                return listed != nil
            }
            guard let listed else { throw HarnessError.timedOut("request \(request.id) listed on computer 1") }
            let asked = Date()
            try blocking { try await to.sync.answer(listed, approve: true, seconds: 60, by: "bench") }
            approval.append(
                waitMilliseconds(since: asked) {
                    seen.answers.withLock { $0["0/\(child)/\(request.id)"] } != nil
                })
            if pause > 0 { Thread.sleep(forTimeInterval: pause) }
        }
        return (usage, approval)
    }

    /// Milliseconds from `start` until `condition` holds (checked every millisecond), or 10 s.
    private func waitMilliseconds(since start: Date, until condition: () -> Bool) -> Double {
        while !condition() {
            if Date().timeIntervalSince(start) > 10 { return 10_000 }
            usleep(1_000)
        }
        return Date().timeIntervalSince(start) * 1000
    }

    // MARK: The lab's load

    /// Every child's interval grows by a second each second, on one of its two computers.
    func startLoad() {
        let thread = Thread { [self] in
            var open: [String: (Ledger, Int64)] = [:]
            let identity = AppIdentity(key: .windowClass("Lab"), displayName: "Lab")
            var elapsed = 0.0
            while self.load.withLock({ $0.running }) {
                elapsed += 1
                for (index, computer) in self.computers.enumerated() {
                    for (child, entry) in computer.ledgers.sorted(by: { $0.key < $1.key }).enumerated()
                    where (child + index) % 2 == 0 {
                        let key = "\(index)/\(entry.key)"
                        do {
                            if let (ledger, id) = open[key] {
                                try ledger.checkpointInterval(id, duration: .seconds(elapsed))
                            } else {
                                let id = try entry.value.ledger.openInterval(
                                    sessionID: entry.value.run, app: identity,
                                    token: ApplicationToken(opaqueValue: "lab"), startingAt: Date())
                                open[key] = (entry.value.ledger, id)
                            }
                            self.writes.add(1, ordering: .relaxed)
                        } catch {
                            print("the lab's load: \(error)")
                        }
                    }
                    computer.sync.usageRecorded()
                }
                Thread.sleep(forTimeInterval: 1)
            }
        }
        load.withLock { $0 = (thread, true) }
        thread.start()
    }

    func stopLoad() {
        load.withLock { $0.running = false }
    }
}
