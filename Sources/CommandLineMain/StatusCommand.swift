import ArgumentParser
import Foundation
import ScreenwardCore
import ScreenwardIPC

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: texts(
            "Say whether the agent runs, what has the focus and whether the person is idle.", context: "help"))

    @Flag(help: ArgumentHelp(texts("Print one JSON object.", context: "help")))
    var json = false

    @Option(
        help: ArgumentHelp(
            texts("A managed user's rules today, as the system daemon keeps them (guardians).", context: "help"),
            valueName: "user"))
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
            print(texts("Agent: not running (home {path})", context: "cli", ["path": home.url.path]))
            return
        }
        print(Self.runningLine(pid: status.pid, display: status.display))
        if let name = status.focusedName, let id = status.focusedID {
            print(texts("Focused: {name} ({id})", context: "cli", ["name": name, "id": id]))
        } else {
            print(texts("Focused: nothing", context: "cli"))
        }
        if let idle = status.idle {
            print(Self.idleLine(idle, threshold: status.idleThresholdSeconds))
        }
        if status.locked == true { print(texts("Screen: locked", context: "cli")) }
    }

    /// "Agent: running", with its pid and its display when known: each a sentence of its own.
    private static func runningLine(pid: Int32?, display: String?) -> String {
        switch (pid.map { String($0) }, display) {
        case (let pid?, let display?):
            texts("Agent: running (pid {pid}) on display {display}", context: "cli", ["pid": pid, "display": display])
        case (let pid?, nil): texts("Agent: running (pid {pid})", context: "cli", ["pid": pid])
        case (nil, let display?): texts("Agent: running on display {display}", context: "cli", ["display": display])
        case (nil, nil): texts("Agent: running", context: "cli")
        }
    }

    /// "Idle: yes" or "no", with the time without input it takes when known.
    private static func idleLine(_ idle: Bool, threshold: Double?) -> String {
        guard let threshold else {
            return idle ? texts("Idle: yes", context: "cli") : texts("Idle: no", context: "cli")
        }
        let values = ["seconds": String(Int(threshold))]
        return idle
            ? texts("Idle: yes (away after {seconds} s without input)", context: "cli", values)
            : texts("Idle: no (away after {seconds} s without input)", context: "cli", values)
    }
}

/// Each rule today: used and left, or when a downtime runs, and what it shields now.
func printRules(_ status: RulesStatus) {
    guard !status.rules.isEmpty else {
        return print(texts("Rules: none (screenward limit add, screenward downtime add)", context: "cli"))
    }
    print(
        status.pausedUntil.map { texts("Rules: paused until {time}", context: "cli", ["time": iso8601($0)]) }
            ?? texts("Rules:", context: "cli"))
    for rule in status.rules {
        // What the rule does today, then each clause that applies; a clause's text holds the
        // line before it ({status}), so that a translation may put the two its own way.
        var line = ruleState(rule)
        if !rule.shieldedNow.isEmpty {
            var values = ["status": line, "applications": rule.shieldedNow.joined(separator: ", ")]
            if let resets = rule.resetsAt {
                values["time"] = iso8601(resets)
                line = texts("{status}; shields {applications} until {time}", context: "cli", values)
            } else {
                line = texts("{status}; shields {applications}", context: "cli", values)
            }
        } else if let resets = rule.resetsAt {
            line = texts("{status} until {time}", context: "cli", ["status": line, "time": iso8601(resets)])
        }
        if let pending = rule.pending {
            let values = ["status": line, "time": iso8601(pending.effectiveAt)]
            line =
                pending.rule == nil
                ? texts("{status}; removed at {time}", context: "cli", values)
                : texts("{status}; relaxed at {time}", context: "cli", values)
        }
        print("  " + line)
    }
    if !status.allowed.isEmpty {
        let allowed = ["applications": status.allowed.joined(separator: ", ")]
        print("  " + texts("Always allowed: {applications}", context: "cli", allowed))
    }
}

/// A rule's name and kind, and what it does today: used and left, or when a downtime runs.
private func ruleState(_ rule: RulesStatus.Entry) -> String {
    var values = ["rule": rule.name]
    switch rule.kind {
    case .limit:
        values["used"] = formatDuration(rule.used ?? 0)
        guard rule.appliesToday else { return texts("{rule} (limit): not today", context: "cli", values) }
        guard let allowance = rule.allowance, let remaining = rule.remaining else {
            return texts("{rule} (limit): {used} used, no limit for the rest of today", context: "cli", values)
        }
        values["allowance"] = formatDuration(allowance)
        values["remaining"] = formatDuration(remaining)
        if let extra = rule.extraTime, extra > 0 {
            values["extra"] = formatDuration(extra)
            // swift-format-ignore
            return texts("{rule} (limit): {used} used of {allowance}, {remaining} left (with {extra} extra)", context: "cli", values)
        }
        return texts("{rule} (limit): {used} used of {allowance}, {remaining} left", context: "cli", values)
    case .downtime:
        guard let interval = rule.downtime else { return texts("{rule} (downtime): not ahead", context: "cli", values) }
        let clock = { (date: Date) in
            date.formatted(Date.FormatStyle(date: .omitted, time: .shortened, locale: writtenLocale))
        }
        values["start"] = clock(interval.start)
        values["end"] = clock(interval.end)
        return rule.isDowntimeNow
            ? texts("{rule} (downtime): now, until {end}", context: "cli", values)
            : texts("{rule} (downtime): next from {start} to {end}", context: "cli", values)
    }
}
