import ArgumentParser
import Foundation
import Glibc
import SessionHarness
import X11Session

/// `kill -9` of a managed session's agent, as the system daemon sees it: how soon a new
/// agent runs and the shield is over the shielded game again, and how much usage each
/// kill loses. Everything real but logind (the fake, on a private system bus): a managed
/// user made with useradd, their own Xvfb and cookie, openbox and the windows running as
/// them, the daemon as root. Needs root.
///
/// Times come from the X server's record (`ShieldRecord`, server milliseconds): from the
/// server time read just before the kill to the new agent's first window (its spare
/// shield), and to the shield over the game with its frame, mapped and focused, each
/// read as soon as the record shows it (upper bounds).
/// Usage lost: with an unshielded window focused, the wall time around a kill minus the
/// usage the daemon recorded for it.
struct AgentKillBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "agent-kill",
        abstract:
            """
            kill -9 of a managed session's agent → a new agent, the shield back (X server record), usage lost \
            (root).
            """)

    enum Targets {
        static let shieldBack = Target(
            figure: "kill -9 → shield over the game again, p99", limit: 1000, unit: "ms", digits: 0)
        static let usageLost = Target(figure: "usage lost per kill -9, max", limit: 100, unit: "ms", digits: 0)
    }

    @Option(help: "How many times the agent is killed in each phase.")
    var kills = 20
    @Option(help: "Directory the figures are written to, as JSON.")
    var output = "bench-results"

    func validate() throws {
        guard kills >= 1 else { throw ValidationError("--kills ≥ 1") }
        if let missing = ManagedDesktopRig.missingRequirement() { throw ValidationError("cannot run: \(missing)") }
    }

    func run() throws {
        let rig = try DaemonRig()
        let desktop = try ManagedDesktopRig(fixture: rig, windows: ["game.Game:Game", "notes.Notes:Notes"])
        defer { desktop.tearDown() }
        print(
            """
            Screenward agent kill benchmark on \(desktop.display): \(kills) kills of the agent, then \(kills) \
            more with usage counted
            """
        )
        try desktop.startSessionWithTheGameShielded()
        // This process reads the child's display with their cookie (root may).
        XConnection.useAuthorityFile(desktop.authority)
        let record = try ShieldRecord(display: desktop.display)
        let driver = try FocusDriver(display: desktop.display)
        let game = try windowID(desktop.windows[0])

        var agentBack: [Double] = []
        var shieldBack: [Double] = []
        for _ in 0..<kills {
            // From another window to the game: its shield takes the focus (a change the record sees).
            try driver.activate(desktop.windows[1])
            try driver.activate(desktop.windows[0])
            _ = try record.waitUntilCovered(game)
            record.update()
            let known = record.shieldsAdded
            guard let agent = desktop.agentPID() else { throw HarnessError.failed("no agent runs") }
            let killedAt = try record.serverTime()
            kill(agent, SIGKILL)
            let started = try record.waitForNewShield(after: known)
            // The old shield is gone with its client: the new agent's must take its place.
            let end = try record.waitUntilCovered(game)
            agentBack.append(Double(Int32(bitPattern: started &- killedAt)))
            shieldBack.append(Double(Int32(bitPattern: end &- killedAt)))
        }

        // Usage: Notes has the focus (not shielded); each kill should cost no counted time.
        // The last agent's shield took the focus a moment ago, and its own activation may
        // still be on its way: activated just then, Notes can lose the focus to it again (seen:
        // 14 ms later), and a kill with the shield focused hands nothing over to the next agent.
        let notes = try windowID(desktop.windows[1])
        try record.holdFocus(notes, settled: .milliseconds(500)) { try driver.activate(desktop.windows[1]) }
        Thread.sleep(forTimeInterval: 1.5)
        guard try desktop.usageSeconds(of: "wmclass:Notes") > 0 else {
            throw HarnessError.failed(
                """
                the daemon records no use of Notes while it has the focus: \
                \(try rig.screenward(as: "root", ["usage", "--user", desktop.kid]).output)
                """
            )
        }
        var lost: [Double] = []
        for _ in 0..<kills {
            let attached = desktop.attachCount()
            let before = try desktop.usageSeconds(of: "wmclass:Notes")
            let from = Date()
            guard let agent = desktop.agentPID() else { throw HarnessError.failed("no agent runs") }
            kill(agent, SIGKILL)
            try desktop.waitFor("a new agent") { desktop.attachCount() > attached }
            Thread.sleep(forTimeInterval: 1.5)
            let after = try desktop.usageSeconds(of: "wmclass:Notes")
            let elapsed = Date().timeIntervalSince(from)
            lost.append(max(0, (elapsed - (after - before)) * 1000))
        }

        var figures: [String: Any] = ["date": ISO8601DateFormatter().string(from: Date()), "kills": kills]
        var verdicts = Verdicts()
        print("")
        for (name, label, samples) in [
            ("agent_back", "kill -9 → a new agent's first window", agentBack),
            ("shield_back", "kill -9 → shield over the game, mapped and focused", shieldBack),
            ("usage_lost", "usage lost per kill (Notes focused)", lost),
        ] {
            let sorted = samples.sorted()
            func percentile(_ p: Double) -> Double { screenward_bench.percentile(p, of: sorted) }
            print(
                """
                  \(label), \(sorted.count) times (ms): p50 \(format(percentile(0.5), 0)), p99 \
                \(format(percentile(0.99), 0)), max \(format(sorted.last!, 0))
                """
            )
            figures[name] = [
                "count": sorted.count, "p50_ms": percentile(0.5), "p99_ms": percentile(0.99), "max_ms": sorted.last!,
                "samples_ms": samples,
            ]
            if name == "shield_back" { verdicts.check(Targets.shieldBack, percentile(0.99)) }
            if name == "usage_lost" { verdicts.check(Targets.usageLost, sorted.last!) }
        }
        print("  the new agent's first window is seen when the server reports it (its creation has no time stamp);")
        print(
            """
              usage lost is the wall time around a kill minus the usage the daemon recorded for it (its read \
            counts up to now).
            """
        )
        verdicts.printLines()
        verdicts.record(in: &figures)
        let url = try writeFigures(figures, name: "agent-kill", to: output)
        // The daemon's and its agents' log, for a look at a slow or lossy kill.
        try? (rig.daemon?.standardError ?? "").write(
            to: url.deletingLastPathComponent().appendingPathComponent("agent-kill-daemon.log"), atomically: true,
            encoding: .utf8)
        print("Figures written to \(url.path)")
        try verdicts.exitIfMissed()
    }
}
