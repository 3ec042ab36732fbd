import ArgumentParser
import Foundation
import ScreenwardCore

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Say whether the agent runs, what has the focus and whether the person is idle.")

    @Flag(help: "Print one JSON object.")
    var json = false

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

        enum CodingKeys: String, CodingKey {
            case running, pid, display, idle, locked, since
            case focusedID = "focused_id"
            case focusedName = "focused_name"
            case idleThresholdSeconds = "idle_threshold_seconds"
        }
    }

    func run() throws {
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
        if json {
            try printJSON(status)
            return
        }
        guard status.running else {
            print("Agent: not running (home \(home.url.path))")
            return
        }
        print("Agent: running\(status.pid.map { " (pid \($0))" } ?? "")\(status.display.map { " on display \($0)" } ?? "")")
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
