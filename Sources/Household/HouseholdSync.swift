import Foundation
import PostgresNIO
import ScreenwardCore
import ScreenwardIPC
import Synchronization

/// Keeps this computer's managed people's usage in step with the household's database
/// (docs/household.md), on a task of its own: the daemon's loop never waits on the network.
///
/// It sends what the ledgers recorded as soon as it is written (`usageRecorded`), reads the
/// other computers' changes when the database says there are some (LISTEN/NOTIFY, a doorbell
/// only: a notice sent while this computer was away is not kept, so every read is of what
/// changed since a cursor) and once a second in any case, and hands each child's other
/// computers' usage to the daemon when it changed. When the database cannot be reached,
/// nothing is lost: the ledgers keep what is not sent, the daemon enforces what it knew
/// last, and the next connection catches up, counting nothing twice.
public final class HouseholdSync: Sendable {
    /// A managed person here, as the household knows them (by name), and their ledger.
    public struct Child: Sendable {
        public var name: String
        public var ledger: Ledger
        /// Their events recorded here after an id and since a time, oldest first, at most so
        /// many (`DaemonState.events(uid:after:since:limit:)`).
        public var events:
            @Sendable (_ after: Int64, _ since: Date, _ limit: Int) throws -> [(
                id: Int64, event: ChildEvent
            )]

        public init(
            name: String, ledger: Ledger,
            events: @escaping @Sendable (Int64, Date, Int) throws -> [(id: Int64, event: ChildEvent)] = { _, _, _ in []
            }
        ) {
            self.name = name
            self.ledger = ledger
            self.events = events
        }
    }

    public let membership: HouseholdMembership
    /// How often it reads when it hears nothing, and how long it waits to connect again.
    public static let readEvery: Duration = .seconds(1)
    public static let retryAfter: Duration = .seconds(2)
    /// How far back the other computers' usage is kept and handed over (as `LiveUsage`'s).
    public static let horizon: TimeInterval = LiveUsage.defaultHorizon

    private let doorbell = Doorbell()
    private let children = Mutex<[Child]>([])
    private let problem = Mutex<Phrase?>(nil)
    private let task = Mutex<Task<Void, Never>?>(nil)
    /// Called with a child's name and all of their other computers' usage within the
    /// horizon, from the sync's task, whenever it changed.
    private let delivered: @Sendable (String, [ElsewhereInterval]) -> Void
    /// Called when the sync meets a problem or is rid of it (nil), from the sync's task: in
    /// English, for the daemon's log.
    private let report: @Sendable (String?) -> Void
    /// Called with a child's name and the household's newer rules of theirs, to be made theirs
    /// here (on the daemon's loop, by their rules app), then `adopted(child:)`.
    let adopt: @Sendable (String, Int64, HouseholdRules) -> Void
    /// The household's rules handed over and not yet taken, by child: nothing is published
    /// for them meanwhile.
    let adopting = Mutex<[String: Int64]>([:])

    /// Called with a child's name and an answer given elsewhere to a request of theirs still
    /// pending here, to be applied (on the daemon's loop, by their rules app).
    let answered: @Sendable (String, ElsewhereAnswer) -> Void
    /// The other computers' requests, by child, as last read.
    let requestsElsewhere = Mutex<[String: [ElsewhereRequest]]>([:])
    /// This computer's requests as last sent (by child, id: state), and the answers handed
    /// over and not yet applied (by child).
    let sentRequests = Mutex<[String: [Int64: TimeRequest.State]]>([:])
    let answersHandedOver = Mutex<[String: Set<Int64>]>([:])

    /// Called with a child's name and the extra time given them on other computers that
    /// their ledger had not kept before (it is kept now), to count it (on the daemon's loop).
    let extraTimeGiven: @Sendable (String, [SharedExtraTime]) -> Void
    /// This computer's guardians (root, and its guardian group's members), told to the
    /// household when they change: the others apply only answers they gave. And as last told.
    private let guardians: @Sendable () -> [String]
    private let guardiansTold = Mutex<[String]?>(nil)

    /// This computer's clock, which its ledgers' times are on (a test sets it minutes off).
    private let clock: @Sendable () -> Date

    /// Called with the children guardians on other computers made managed or not, each
    /// change once per run (the daemon follows those newer than what it did itself).
    private let childrenChanged: @Sendable ([HouseholdChildChange]) -> Void
    private let childChangesSeen = Mutex<Set<HouseholdChildChange>>([])

    /// A guardian here made `name` managed or not: written to the household's database, where
    /// every other computer reads it within 5 s.
    public func publishChild(_ name: String, managed: Bool, by guardian: String) async throws {
        try await HouseholdDatabase.with(membership.login) { connection in
            do {
                try await ChildrenExchange.publish(name, managed: managed, by: guardian, on: connection)
            } catch {
                throw HouseholdError(
                    Phrase(
                        "could not tell the household: {error}", context: "household",
                        ["error": HouseholdDatabase.spoken(error)]))
            }
        }
        doorbell.ring()
    }

    /// This computer's extra time sent (by child, local id): sent once per run; a resend
    /// after a restart changes nothing there.
    let sentExtraTime = Mutex<[String: Set<Int64>]>([:])

    public init(
        membership: HouseholdMembership, delivered: @escaping @Sendable (String, [ElsewhereInterval]) -> Void,
        adopt: @escaping @Sendable (String, Int64, HouseholdRules) -> Void,
        answered: @escaping @Sendable (String, ElsewhereAnswer) -> Void,
        extraTimeGiven: @escaping @Sendable (String, [SharedExtraTime]) -> Void,
        childrenChanged: @escaping @Sendable ([HouseholdChildChange]) -> Void = { _ in },
        clock: @escaping @Sendable () -> Date = Date.init,
        guardians: @escaping @Sendable () -> [String] = { [] },
        report: @escaping @Sendable (String?) -> Void
    ) {
        self.childrenChanged = childrenChanged
        self.clock = clock
        self.guardians = guardians
        self.membership = membership
        self.delivered = delivered
        self.adopt = adopt
        self.answered = answered
        self.extraTimeGiven = extraTimeGiven
        self.report = report
    }

    /// The last event of each child's sent (by id here), and the other computers' events as
    /// read (by their key), with the latest arrival read. Forgotten with the process: the next
    /// run sends its events again (which changes nothing there) and reads the others' again.
    let eventsSent = Mutex<[String: Int64]>([:])
    let eventsElsewhere = Mutex<[String: (events: [String: ChildEvent], latest: Double?)]>([:])

    /// What happened to `child`'s limits on the household's other computers (the last 30
    /// days), oldest first, as last read.
    public func events(elsewhereOf child: String) -> [ChildEvent] {
        (eventsElsewhere.withLock { $0[child]?.events.values.map { $0 } } ?? []).sorted { $0.at < $1.at }
    }

    /// The requests of `child` asked on the household's other computers (today's, and any
    /// still pending), as last read.
    public func requests(elsewhereOf child: String) -> [ElsewhereRequest] {
        requestsElsewhere.withLock { $0[child] ?? [] }
    }

    /// A guardian here answers a request asked on another computer: written to the
    /// household's database, where that computer reads it within a second.
    public func answer(
        _ request: ElsewhereRequest, approve: Bool, seconds: TimeInterval?, by guardian: String
    ) async throws {
        try await HouseholdDatabase.with(membership.login) { connection in
            do {
                try await RequestsExchange.answer(
                    request, approve: approve, seconds: seconds, by: guardian, on: connection)
            } catch let error as HouseholdError {
                throw error
            } catch {
                throw HouseholdError(
                    Phrase(
                        "could not answer: {error}", context: "household", ["error": HouseholdDatabase.spoken(error)]))
            }
        }
        doorbell.ring()
    }

    /// The daemon took the household's rules of `child` (its rules app, and the ledger's
    /// note of their version).
    public func adopted(child: String) {
        adopting.withLock { $0[child] = nil }
        doorbell.ring()
    }

    /// The managed people whose usage is exchanged (all of this computer's).
    public func setChildren(_ list: [Child]) {
        children.withLock { $0 = list }
        doorbell.ring()
    }

    /// A ledger has new usage written: send it now.
    public func usageRecorded() { doorbell.ring() }

    /// The last problem met, while it lasts; or that the database has not answered for a
    /// while (an exchange waits up to `answerWithin` before it counts as failed). A phrase:
    /// the refusals that name it reach a command line, which translates them.
    public var currentProblem: Phrase? {
        if let problem = problem.withLock({ $0 }) { return problem }
        guard let last = lastInStep.withLock({ $0 }) else {
            return Phrase("not yet in step with the household's database", context: "household")
        }
        let quiet = Date().timeIntervalSince(last)
        guard quiet > Self.quietAfter else { return nil }
        return Phrase(
            "the household's database has not answered for {seconds} s", context: "household",
            ["seconds": String(Int(quiet))])
    }

    /// When the last exchange ended well.
    private let lastInStep = Mutex<Date?>(nil)
    /// How long without an exchange counts as out of step (one comes every second).
    public static let quietAfter: TimeInterval = 4

    public func start() {
        let newTask = Task.detached { [self] in await run() }
        task.withLock { $0 = newTask }
    }

    public func stop() {
        task.withLock { task in
            task?.cancel()
            task = nil
        }
        doorbell.ring()
    }

    // MARK: Running

    private func run() async {
        while !Task.isCancelled {
            var connections: [PostgresConnection] = []
            do {
                let connection = try await HouseholdDatabase.connect(membership.login)
                connections.append(connection)
                // The database's notices only ring the doorbell, on a connection of their own,
                // and are not awaited: a notice stream whose connection died may never end.
                let listener = try await HouseholdDatabase.connect(membership.login)
                connections.append(listener)
                let me = membership.login.role
                let listening = Task { [self] in
                    try await listener.listen(on: UsageExchange.channel) { notices in
                        for try await notice in notices { heard(notice.payload, me: me) }
                    }
                }
                nextFullRead.withLock { $0 = .distantPast }
                defer { listening.cancel() }
                while !Task.isCancelled {
                    try await Self.withDeadline(Self.answerWithin) { try await self.exchange(on: connection) }
                    lastInStep.withLock { $0 = Date() }
                    setProblem(nil)
                    await doorbell.wait(upTo: Self.readEvery)
                }
            } catch is CancellationError {
                await Self.close(connections)
                return
            } catch {
                setProblem(Self.say(error))
            }
            await Self.close(connections)
            try? await Task.sleep(for: Self.retryAfter)
        }
    }

    /// Closes each connection, waiting a few seconds at most for each (a dead one is left to
    /// its channel's end).
    private static func close(_ connections: [PostgresConnection]) async {
        for connection in connections {
            _ = try? await withDeadline(.seconds(5)) { try await connection.close() }
        }
    }

    /// How long one exchange may take before the database counts as gone. An exchange takes
    /// milliseconds (a day's catching up, a fraction of a second); a connection whose server
    /// went away can leave a query unanswered (seen when the server shuts down).
    public static let answerWithin: Duration = .seconds(5)

    /// `body`'s result, or an error once `limit` has passed: a connection that died without
    /// its queries hearing of it must not hold the sync up. What `body` was doing is left to
    /// end when its connection is closed.
    static func withDeadline<Value: Sendable>(
        _ limit: Duration, _ body: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let answer = OneAnswer<Value>()
        return try await withCheckedThrowingContinuation { continuation in
            answer.wait(continuation)
            let timer = Task {
                try? await Task.sleep(for: limit)
                answer.give(
                    .failure(
                        HouseholdError(
                            Phrase(
                                "the household's database did not answer within {seconds} s", context: "household",
                                ["seconds": String(limit.components.seconds)]))))
            }
            Task {
                do {
                    answer.give(.success(try await body()))
                } catch {
                    answer.give(.failure(error))
                }
                timer.cancel()
            }
        }
    }

    /// The children another computer wrote something of (a notice `ROLE CHILD`): theirs are
    /// read at the next exchange. Notices of this computer's own, and of children it does not
    /// have, wake nothing: in a school lab every computer hears every other.
    private let heardOf = Mutex<Set<String>>([])

    private func heard(_ payload: String, me: String) {
        let parts = payload.split(separator: " ", maxSplits: 1).map(String.init)
        guard parts.count == 2, parts[0] != me else { return }
        let child = parts[1]
        guard children.withLock({ $0.contains { $0.name == child } }) else { return }
        heardOf.withLock { _ = $0.insert(child) }
        doorbell.ring()
    }

    /// When every child's changes elsewhere are read whatever was heard (a notice lost with a
    /// connection is then caught up), and when this computer next says it is here.
    private let nextFullRead = Mutex(Date.distantPast)
    public static let fullReadEvery: TimeInterval = 5

    /// Sends each child's unsent usage, reads what the other computers changed of the
    /// children heard of (of all, every `fullReadEvery`), and hands over what changed.
    func exchange(on connection: PostgresConnection) async throws {
        var sent = false
        let now = Date()
        let full = nextFullRead.withLock { next in
            guard now >= next else { return false }
            next = now.addingTimeInterval(Self.fullReadEvery)
            return true
        }
        let heard = heardOf.withLock { heard in
            defer { heard = [] }
            return heard
        }
        for child in children.withLock({ $0 }) {
            let reading = full || heard.contains(child.name)
            let ledgerID = try child.ledger.householdLedgerID()
            while true {
                let batch = try child.ledger.intervalsToUpload().filter { !sentAlready($0, of: child.name) }
                guard !batch.isEmpty else { break }
                try await UsageExchange.upload(
                    batch, child: child.name, ledgerID: ledgerID, on: connection, clock: clock)
                try child.ledger.recordUploaded(batch)
                noteSent(batch, of: child.name)
                sent = true
                if batch.count < 2_000 { break }
            }
            try await exchangeRules(of: child, reading: reading, on: connection)
            try await exchangeRequests(of: child, ledgerID: ledgerID, reading: reading, on: connection)
            try await exchangeExtraTime(of: child, ledgerID: ledgerID, reading: reading, on: connection)
            try await exchangeEvents(of: child, ledgerID: ledgerID, reading: reading, on: connection)
            guard reading else { continue }
            let since = clock().addingTimeInterval(-Self.horizon)
            let cursors = try child.ledger.elsewhereCursors()
            let read = try await UsageExchange.download(
                child: child.name, after: cursors, since: since, on: connection, clock: clock)
            guard read.cursors != cursors || !read.intervals.isEmpty else { continue }
            try child.ledger.storeElsewhere(read.intervals, cursors: read.cursors)
            if !read.intervals.isEmpty {
                delivered(child.name, try child.ledger.elsewhereIntervals(since: since))
            }
        }
        if full {
            let guardians = Array(Set(guardians())).sorted()
            if guardiansTold.withLock({ $0 }) != guardians {
                try await GuardiansExchange.publish(guardians, on: connection)
                guardiansTold.withLock { $0 = guardians }
            }
            let changes = try await ChildrenExchange.read(on: connection)
            let new = childChangesSeen.withLock { seen in changes.filter { seen.insert($0).inserted } }
            if !new.isEmpty { childrenChanged(new) }
        }
        if !sent && full { try await UsageExchange.markSeen(on: connection) }
    }

    /// The open intervals sent, by child and id, as they were sent: one whose length has not
    /// changed since is not sent again (it would only wake the other computers). Forgotten
    /// with the process: the next run sends them once more, which changes nothing there.
    private let sentOpen = Mutex<[String: [Int64: Double]]>([:])

    private func sentAlready(_ interval: HouseholdUpload, of child: String) -> Bool {
        interval.isOpen && sentOpen.withLock { $0[child]?[interval.id] } == interval.duration
    }

    private func noteSent(_ batch: [HouseholdUpload], of child: String) {
        sentOpen.withLock { sent in
            var open: [Int64: Double] = [:]
            for interval in batch where interval.isOpen { open[interval.id] = interval.duration }
            sent[child] = open
        }
    }

    private func setProblem(_ new: Phrase?) {
        let changed = problem.withLock { current -> Bool in
            defer { current = new }
            return current != new
        }
        if changed { report(new?.description) }
    }

    private static func say(_ error: any Error) -> Phrase {
        HouseholdError.describing(error).phrase
    }
}

/// A continuation resumed once, by whichever answer comes first.
private final class OneAnswer<Value: Sendable>: Sendable {
    private let waiting = Mutex<CheckedContinuation<Value, any Error>?>(nil)

    func wait(_ continuation: CheckedContinuation<Value, any Error>) {
        waiting.withLock { $0 = continuation }
    }

    func give(_ result: Result<Value, any Error>) {
        let continuation = waiting.withLock { continuation in
            defer { continuation = nil }
            return continuation
        }
        continuation?.resume(with: result)
    }
}
