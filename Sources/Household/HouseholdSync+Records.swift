import Foundation
import PostgresNIO
import ScreenwardCore

/// The sync's exchanges of a child's records other than usage (docs/household.md): rules,
/// requests for more time and their answers, extra time and events. Each sends what changed
/// here and, when `reading`, reads what the other computers changed.
extension HouseholdSync {
    /// The household's rules of `child`: a newer version than the one known here is handed
    /// over to be made theirs; rules changed here since are published.
    func exchangeRules(of child: Child, reading: Bool, on connection: PostgresConnection) async throws {
        guard adopting.withLock({ $0[child.name] }) == nil else { return }
        let local = try child.ledger.householdRules()
        let known = try child.ledger.householdRulesState()
        guard reading || local != known?.rules else { return }
        if let remote = try await RulesExchange.read(child: child.name, on: connection),
            remote.version > known?.version ?? 0
        {
            if remote.rules == local {
                try child.ledger.setHouseholdRulesState(version: remote.version, rules: local)
            } else {
                adopting.withLock { $0[child.name] = remote.version }
                adopt(child.name, remote.version, remote.rules)
            }
            return
        }
        guard local != known?.rules else { return }
        let version = try await RulesExchange.publish(local, child: child.name, on: connection)
        try child.ledger.setHouseholdRulesState(version: version, rules: local)
    }

    /// This computer's requests of `child` sent when new or changed; the other computers'
    /// read; answers given elsewhere to requests still pending here handed over.
    func exchangeRequests(
        of child: Child, ledgerID: String, reading: Bool, on connection: PostgresConnection
    ) async throws {
        let mine = try child.ledger.timeRequests(since: Date().addingTimeInterval(-RequestsExchange.window))
        let sent = sentRequests.withLock { $0[child.name] ?? [:] }
        let changed = mine.filter { sent[$0.id] != $0.state }
        try await RequestsExchange.upload(changed, child: child.name, ledgerID: ledgerID, on: connection)
        sentRequests.withLock { sentRequests in
            for request in changed { sentRequests[child.name, default: [:]][request.id] = request.state }
        }
        guard reading else { return }
        let elsewhere = try await RequestsExchange.readElsewhere(child: child.name, on: connection)
        requestsElsewhere.withLock { $0[child.name] = elsewhere }
        let pending = Set(mine.filter { $0.state == .pending }.map(\.id))
        guard !pending.isEmpty else { return }
        for answer in try await RequestsExchange.answersToMine(ledgerID: ledgerID, on: connection)
        where pending.contains(answer.requestID) {
            let new = answersHandedOver.withLock { $0[child.name, default: []].insert(answer.requestID).inserted }
            if new { answered(child.name, answer) }
        }
    }

    /// The extra time given here to `child` sent; what was given elsewhere kept here and
    /// handed over to be counted.
    func exchangeExtraTime(
        of child: Child, ledgerID: String, reading: Bool, on connection: PostgresConnection
    ) async throws {
        let sent = sentExtraTime.withLock { $0[child.name] ?? [] }
        let new = try child.ledger.extraTimeToShare(endingAfter: Date()).filter { !sent.contains($0.localID) }
        try await ExtraTimeExchange.upload(new, child: child.name, ledgerID: ledgerID, on: connection)
        sentExtraTime.withLock { $0[child.name, default: []].formUnion(new.map(\.localID)) }
        guard reading else { return }
        let elsewhere = try await ExtraTimeExchange.readElsewhere(child: child.name, on: connection)
        let kept = try child.ledger.storeExtraTimeGivenElsewhere(elsewhere)
        if !kept.isEmpty { extraTimeGiven(child.name, kept) }
    }

    /// `child`'s events recorded here since last sent, sent; the other computers' read.
    func exchangeEvents(
        of child: Child, ledgerID: String, reading: Bool, on connection: PostgresConnection
    ) async throws {
        let after = eventsSent.withLock { $0[child.name] ?? 0 }
        let new = try child.events(after, Date().addingTimeInterval(-EventsExchange.window), EventsExchange.batch)
        if let last = new.last?.id {
            try await EventsExchange.upload(new, child: child.name, ledgerID: ledgerID, on: connection)
            eventsSent.withLock { $0[child.name] = last }
        }
        guard reading else { return }
        // From a minute before the latest arrival read: an event written then may have
        // committed after a later one was read. What was read already is read again, by its key.
        let known = eventsElsewhere.withLock { $0[child.name] }
        let read = try await EventsExchange.readElsewhere(
            child: child.name, writtenAfter: known?.latest.map { $0 - 60 }, on: connection)
        guard !read.events.isEmpty else { return }
        eventsElsewhere.withLock { kept in
            var entry = kept[child.name] ?? ([:], nil)
            entry.events.merge(read.events) { _, new in new }
            let horizon = Date().addingTimeInterval(-EventsExchange.window)
            entry.events = entry.events.filter { $0.value.at > horizon }
            entry.latest = max(entry.latest ?? 0, read.latest ?? 0)
            kept[child.name] = entry
        }
    }
}
