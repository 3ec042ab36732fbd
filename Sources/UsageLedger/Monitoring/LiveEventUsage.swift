import DeviceActivity
import Foundation

/// One event's usage as `LiveUsage` answers it for the engine: its members worked
/// out once (token and category lookups hash strings, and the engine asks every
/// event on every focus change), then only a flag per application and a sum over
/// the members. Worked out again when `LiveUsage`'s catalog version moves.
final class LiveEventUsage: EventUsage {
    private let source: LiveUsage
    private var members: EventMembers

    init(source: LiveUsage, event: DeviceActivityEvent) {
        self.source = source
        members = EventMembers(event: event)
    }

    func focusedSeconds(from: Date, to: Date) -> TimeInterval {
        members.focusedSeconds(in: source, from: from, to: to)
    }

    func accrualRate(at now: Date) -> Double {
        members.accrualRate(in: source, at: now)
    }

    func accruesFrom(_ now: Date) -> Date {
        source.focusStart.map { max(now, Date(timeIntervalSinceReferenceDate: $0)) } ?? now
    }
}

/// An event's member applications, worked out once and again only when the source's
/// applications change (as `catalogVersion` says).
struct EventMembers {
    let event: DeviceActivityEvent
    private var version = -1
    private var members: [Int] = []
    private var isMember: [Bool] = []

    init(event: DeviceActivityEvent) {
        self.event = event
    }

    mutating func focusedSeconds(in source: LiveUsage, from: Date, to: Date) -> TimeInterval {
        refresh(from: source)
        let isMember = isMember
        return source.focusedSeconds(
            ofMembers: members, isMember: { $0 < isMember.count && isMember[$0] }, websites: source.websites(of: event),
            focusIsMember: focusIsMember(in: source),
            from: from, to: to)
    }

    mutating func accrualRate(in source: LiveUsage, at now: Date) -> Double {
        refresh(from: source)
        return source.accrualRate(
            focusIsMember: focusIsMember(in: source), websites: source.websites(of: event), at: now)
    }

    private func focusIsMember(in source: LiveUsage) -> Bool {
        guard let focused = source.focusedIndex, focused < isMember.count else { return false }
        return isMember[focused]
    }

    private mutating func refresh(from source: LiveUsage) {
        guard version != source.catalogVersion else { return }
        members = source.members(of: event)
        isMember = Array(repeating: false, count: source.applicationCount)
        for index in members { isMember[index] = true }
        version = source.catalogVersion
    }
}
