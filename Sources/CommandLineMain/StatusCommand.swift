import ArgumentParser
import Foundation
import ScreenwardCore
import ScreenwardIPC

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Say whether the agent runs, what has the focus and whether the person is idle.")

    @Flag(help: "Print one JSON object.")
    var json = false

    @Option(
        help: ArgumentHelp(
            "A managed user's rules today, as the system daemon keeps them (guardians).", valueName: "user"))
    var user: String?

    struct Status: Encodable {
        var running: Bool
        var pid: Int32?
        var display: String?
        var focusedID: String?
        var focusedName: String?
        var idle: Bool?
        var locked: Bool?
        var idleThresholdSeconds: Double?
        var since: String?
        var rules: RulesStatus?

        enum CodingKeys: String, CodingKey {
            case running, pid, display, idle, locked, since, rules
            case focusedID = "focused_id"
            case focusedName = "focused_name"
            case idleThresholdSeconds = "idle_threshold_seconds"
        }
    }

    func run() throws {
        if let user {
            let rules = try RulesConnection(user: user).call(
                RulesMethods.status, RulesQuery(user: user, language: ShieldDefaults.language()))
            return json ? try printJSON(rules) : printRules(rules)
        }
        let home = ScreenwardHome.fromEnvironment()
        var status = Status(running: false)
        if let ledger = try openLedgerIfPresent(home), let live = try liveSession(ledger, home: home) {
            status.running = true
            status.pid = live.pid
            if let agent = try ledger.agentStatus(), agent.sessionID == live.id {
                status.display = agent.display
                status.focusedID = agent.focusedID
                status.focusedName = agent.focusedName
                status.idle = agent.isIdle
                status.locked = agent.isLocked
                status.idleThresholdSeconds = agent.idleThreshold
                status.since = iso8601(agent.updatedAt)
            }
        } else if AgentLock.isHeld(in: home) {
            status.running = true  // starting up: no session recorded yet
        }
        let managed = DaemonAddress.socketManagingThisAccount(environment: ProcessInfo.processInfo.environment) != nil
        if status.running || managed {
            status.rules = try RulesConnection(user: nil).call(
                RulesMethods.status, RulesQuery(user: nil, language: ShieldDefaults.language()))
        }
        if json {
            try printJSON(status)
            return
        }
        defer { status.rules.map(printRules) }
        guard status.running else {
            print("Agent: not running (home \(home.url.path))")
            return
        }
        print(
            """
            Agent: running\(status.pid.map { " (pid \($0))" } ?? "")\
            \(status.display.map { " on display \($0)" } ?? "")
            """
        )
        if let name = status.focusedName, let id = status.focusedID {
            print("Focused: \(name) (\(id))")
        } else {
            print("Focused: nothing")
        }
        if let idle = status.idle {
            let threshold = status.idleThresholdSeconds.map { " (away after \(Int($0)) s without input)" } ?? ""
            print("Idle: \(idle ? "yes" : "no")\(threshold)")
        }
        if status.locked == true { print("Screen: locked") }
    }
}

/// Each rule today: used and left, or when a downtime runs, and what it shields now.
func printRules(_ status: RulesStatus) {
    guard !status.rules.isEmpty else { return print("Rules: none (screenward limit add, screenward downtime add)") }
    print("Rules:" + (status.pausedUntil.map { " paused until \(iso8601($0))" } ?? ""))
    for rule in status.rules {
        var line = "  \(rule.name) (\(rule.kind.rawValue)): "
        switch rule.kind {
        case .limit:
            if !rule.appliesToday {
                line += "not today"
            } else if let allowance = rule.allowance, let remaining = rule.remaining {
                line +=
                    """
                    \(formatDuration(rule.used ?? 0)) used of \(formatDuration(allowance)), \
                    \(formatDuration(remaining)) left
                    """
                if let extra = rule.extraTime, extra > 0 { line += " (with \(formatDuration(extra)) extra)" }
            } else {
                line += "\(formatDuration(rule.used ?? 0)) used, no limit for the rest of today"
            }
        case .downtime:
            if let interval = rule.downtime {
                let clock = { (date: Date) in
                    DateFormatter.localizedString(from: date, dateStyle: .none, timeStyle: .short)
                }
                line +=
                    rule.isDowntimeNow
                    ? "now, until \(clock(interval.end))"
                    : "next from \(clock(interval.start)) to \(clock(interval.end))"
            } else {
                line += "not ahead"
            }
        }
        if !rule.shieldedNow.isEmpty { line += "; shields \(rule.shieldedNow.joined(separator: ", "))" }
        if let resets = rule.resetsAt { line += " until \(iso8601(resets))" }
        if let pending = rule.pending {
            line +=
                pending.rule == nil
                ? "; removed at \(iso8601(pending.effectiveAt))" : "; relaxed at \(iso8601(pending.effectiveAt))"
        }
        print(line)
    }
    if !status.allowed.isEmpty { print("  Always allowed: \(status.allowed.joined(separator: ", "))") }
}
