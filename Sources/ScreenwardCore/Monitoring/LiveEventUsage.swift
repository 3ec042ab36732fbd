import DeviceActivity
import Foundation

/// One event's usage as `LiveUsage` answers it for the engine: its members worked
/// out once (token and category lookups hash strings, and the engine asks every
/// event on every focus change), then only a flag per application and a sum over
/// the members. Worked out again when `LiveUsage`'s catalog version moves.
final class LiveEventUsage: EventUsage {
    private let source: LiveUsage
    private let event: DeviceActivityEvent
    private var version = -1
    /// Member application indices, each once.
    private var members: [Int] = []
    /// By application index: whether it is a member.
    private var isMember: [Bool] = []

    init(source: LiveUsage, event: DeviceActivityEvent) {
        self.source = source
        self.event = event
    }

    func focusedSeconds(from: Date, to: Date) -> TimeInterval {
        refresh()
        return source.focusedSeconds(ofMembers: members, focusIsMember: focusIsMember, from: from, to: to)
    }

    func accrualRate(at now: Date) -> Double {
        refresh()
        return source.accrualRate(focusIsMember: focusIsMember, at: now)
    }

    private var focusIsMember: Bool {
        guard let focused = source.focusedIndex, focused < isMember.count else { return false }
        return isMember[focused]
    }

    private func refresh() {
        guard version != source.catalogVersion else { return }
        members = source.members(of: event)
        isMember = Array(repeating: false, count: source.applicationCount)
        for index in members { isMember[index] = true }
        version = source.catalogVersion
    }
}
