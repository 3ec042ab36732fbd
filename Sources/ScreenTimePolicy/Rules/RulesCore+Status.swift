import Foundation
@_spi(Screenward) import ManagedSettings

/// Each rule today, for `screenward status` and the tray.
extension RulesCore {
    func status(language: String) throws -> RulesStatus {
        let time = now
        let pending = try ledger.pendingRuleChanges()
        let allowed = try ledger.allowedApplications().filter { $0.effectiveAt <= time }.map(\.id)
        var entries: [RulesStatus.Entry] = []
        for rule in try storedRules() {
            var entry = RulesStatus.Entry(
                name: rule.name, kind: rule.kind, appliesToday: false, extraTimeTakenToday: 0,
                extraTimePerDay: rule.extraTimePerDay,
                isDowntimeNow: false, shieldedNow: [], lockedFor: rule.lockedFor,
                pending: pending.first { $0.name.caseInsensitiveCompare(rule.name) == .orderedSame })
            switch rule.kind {
            case .limit:
                let state = try limitState(rule, at: time)
                entry.appliesToday = state.appliesToday
                entry.used = state.used
                entry.allowance = state.unlimited ? nil : state.allowance
                entry.remaining = state.appliesToday ? (state.unlimited ? nil : state.remaining) : nil
                entry.extraTime = state.unlimited ? nil : state.extraTime
                entry.extraTimeTakenToday = try extraTimeTaken(on: rule, in: state.day)
                if state.isUsedUp {
                    entry.resetsAt = state.day.end
                    entry.shieldedNow = (rule.items.map { itemNames($0, language: language) } ?? []).filter { name in
                        !allowed.contains { owner.directory.application(publicID: $0)?.displayName == name }
                    }
                }
            case .downtime:
                let state = downtimeState(rule, at: time)
                entry.downtime = state.interval
                entry.isDowntimeNow = state.isActive
                entry.appliesToday =
                    state.interval.map { $0.start < (calendar.dateInterval(of: .day, for: time)?.end ?? time) } ?? false
                if state.isActive, let interval = state.interval {
                    entry.extraTimeTakenToday = try extraTimeTaken(on: rule, in: interval)
                    let freed = try runningDowntimeGrants(rule, at: time).count
                    var spared = allowed.map { owner.directory.application(publicID: $0)?.displayName ?? $0 }
                    if freed > 0 { spared.append("\(freed) with extra time") }
                    entry.shieldedNow = [
                        "every application" + (spared.isEmpty ? "" : " but \(spared.joined(separator: ", "))")
                    ]
                }
            }
            entries.append(entry)
        }
        var status = RulesStatus(rules: entries, allowed: allowed, at: time)
        status.pausedUntil = try pausedUntil(at: time)
        return status
    }
}
