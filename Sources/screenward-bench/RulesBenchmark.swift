import ArgumentParser
import Foundation
import ScreenwardCore
import ScreenwardIPC
import ScreenwardTesting
import SessionHarness
import X11Session

/// Our rules on screen: how late a used-up limit's shield covers its application, and
/// (as root, in a managed session) how soon a guardian's approval lifts it.
///
/// Limits, through the real agent under Xvfb + openbox: each sample adds a limit that
/// leaves the game a few seconds more today, then activates the game. The limit runs out
/// at the activation's server time plus what was left (the agent counts the focus from
/// the X server's activation); the sample ends when the shield over the game is mapped
/// with its frame and holds the focus (`ShieldRecord`, server milliseconds). The figure
/// is the end minus the moment the limit ran out. For scale, the same samples time the
/// window manager alone: from the X server's time read just before the game's activation
/// is asked for to the activation's own time stamp (an upper bound, by one round trip).
///
/// Approvals, through the real daemon, a real managed user and their agent: the child
/// asks for more time on the shield (real keys), the benchmark (root, a guardian) sends
/// the approval straight to the daemon's socket; the figure runs from the X server's time
/// read just before the request is sent to the shield seen gone (read once seen).
struct RulesBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rules",
        abstract: "Limit used up → shield over the app; a guardian's approval → shield lifted (X server record).")

    enum Targets {
        static let limit = Target(
            figure: "limit used up → shield over the app, p99", limit: 10, unit: "ms", inclusive: true, digits: 0)
        static let approval = Target(
            figure: "guardian's approval → shield lifted, p99", limit: 1000, unit: "ms", digits: 0)
    }

    @Option(help: "How many limits run out.")
    var limits = 50
    @Option(help: "How many approvals (root only: a managed user is made).")
    var approvals = 20
    @Option(help: "Directory the figures are written to, as JSON.")
    var output = "bench-results"

    func validate() throws {
        guard limits >= 1, approvals >= 0 else { throw ValidationError("--limits ≥ 1, --approvals ≥ 0") }
    }

    func run() throws {
        var figures: [String: Any] = ["date": ISO8601DateFormatter().string(from: Date())]
        var verdicts = Verdicts()
        let (limitSamples, managerSamples) = try measureLimits()
        report(
            limitSamples, name: "limit", label: "limit used up → shield over the app, mapped and focused",
            target: Targets.limit, into: &figures, &verdicts)
        report(
            managerSamples, name: "window_manager_activation",
            label: "for scale, the window manager alone: activation asked → window focused", target: nil,
            into: &figures, &verdicts)
        if approvals > 0 {
            if let missing = ManagedDesktopRig.missingRequirement() {
                print("  approvals: skipped (\(missing))")
            } else {
                let approvalSamples = try measureApprovals()
                report(
                    approvalSamples, name: "approval", label: "guardian's approval → shield lifted",
                    target: Targets.approval, into: &figures, &verdicts)
            }
        }
        verdicts.printLines()
        verdicts.record(in: &figures)
        print("Figures written to \(try writeFigures(figures, name: "rules", to: output).path)")
        try verdicts.exitIfMissed()
    }

    private func report(
        _ samples: [Double], name: String, label: String, target: Target?, into figures: inout [String: Any],
        _ verdicts: inout Verdicts
    ) {
        let sorted = samples.sorted()
        func at(_ p: Double) -> Double { percentile(p, of: sorted) }
        print(
            """
              \(label), \(sorted.count) times (ms): p50 \(format(at(0.5), 0)), p90 \(format(at(0.9), 0)), p99 \
            \(format(at(0.99), 0)), max \(format(sorted.last!, 0))
            """
        )
        figures[name] = [
            "count": sorted.count, "p50_ms": at(0.5), "p90_ms": at(0.9), "p99_ms": at(0.99), "max_ms": sorted.last!,
        ]
        if let target { verdicts.check(target, at(0.99)) }
    }

    // MARK: Limits

    /// The limits' samples, and the window manager's own time for each game activation.
    private func measureLimits() throws -> (limits: [Double], windowManager: [Double]) {
        let session = try PrivateXSession()
        let catalog = try GameCatalog()
        defer { catalog.remove() }
        let environment = catalog.environment
        let windows = try DemoApplications(display: session.display, windows: ["notes.Notes", "game.Game"])
        let (notes, game) = (windows.windows[0], windows.windows[1])
        let driver = try FocusDriver(display: session.display)
        let record = try ShieldRecord(display: session.display)
        let agent = try AgentRun(display: session.display, home: catalog.home, environment: environment)
        defer { agent.stop() }
        print("Screenward rules benchmark on \(session.display) (Xvfb + openbox): \(limits) limits run out")
        let gameID = try windowID(game)
        var samples: [Double] = []
        var managerSamples: [Double] = []
        for index in 0..<limits {
            try driver.activate(notes)
            if index > 0 { _ = try agent.cli(["limit", "remove", "L\(index - 1)"]) }
            // What the game has used today, then a limit that leaves it 2 to 3 seconds more.
            let used = try agent.usage().seconds(of: "game.desktop")
            let daily = (used + 2).rounded(.up)
            _ = try agent.cli(["limit", "add", "L\(index)", "--app", "game.desktop", "--daily", "\(Int(daily))s"])
            driver.log.poll()
            record.update()
            let firstEntry = driver.log.entries.count
            let asked = try record.serverTime()
            driver.connection.requestActivation(of: gameID)
            let end = try record.waitForShield(over: gameID, timeout: .seconds(15)) { driver.log.poll() }
            // The game's activation: the change that made it active. Openbox sets None first
            // (a focus out), sometimes in an earlier millisecond; the agent, like this
            // truth, counts the game's time from the change to the game.
            func gameActivation() -> UInt32? {
                driver.log.entries[firstEntry...].first { $0.window == gameID }?.serverTime
            }
            let deadline = Date().addingTimeInterval(2)
            while gameActivation() == nil, Date() < deadline {
                driver.log.poll()
                Thread.sleep(forTimeInterval: 0.001)
            }
            guard let activated = gameActivation() else {
                throw HarnessError.timedOut("the game's activation was not seen")
            }
            let ranOut = Double(activated) + (daily - used) * 1000
            samples.append(Double(end.serverTime) - ranOut)
            managerSamples.append(Double(Int32(bitPattern: activated &- asked)))
        }
        return (samples, managerSamples)
    }

    // MARK: Approvals

    private func measureApprovals() throws -> [Double] {
        let rig = try DaemonRig()
        let desktop = try ManagedDesktopRig(fixture: rig, windows: ["game.Game:Game", "notes.Notes:Notes"])
        defer { desktop.tearDown() }
        print("Screenward rules benchmark on \(desktop.display), a managed session: \(approvals) approvals")
        try desktop.startManagedSession()
        XConnection.useAuthorityFile(desktop.authority)
        let record = try ShieldRecord(display: desktop.display)
        let driver = try FocusDriver(display: desktop.display)
        let game = try windowID(desktop.windows[0])
        let kid = desktop.kid
        let added = try rig.screenward(
            as: "root", ["limit", "add", "Games", "--app", "wmclass:Game", "--daily", "1s", "--user", kid])
        guard added.status == 0 else { throw HarnessError.failed("limit add: \(added.error)") }
        let transport = SocketTransport(path: rig.socket)
        defer { transport.close() }
        let guardian = ServiceClient(transport: transport, bundleIdentifier: "org.screenward.cli")
        var samples: [Double] = []
        for round in 1...approvals {
            try driver.activate(desktop.windows[1])
            try driver.activate(desktop.windows[0])
            _ = try record.waitUntilCovered(game, timeout: .seconds(20))
            // The child asks, with real keys on the shield; the shield is redrawn as waiting.
            let keys = try desktop.pressSecondButtonOnShield()
            guard keys.status == 0 else { throw HarnessError.failed("xdotool: \(keys.error)") }
            var pending: TimeRequest?
            let deadline = Date().addingTimeInterval(15)
            while pending == nil, Date() < deadline {
                pending = try guardian.call(RulesMethods.requests, RulesQuery(user: kid, language: "en")).first {
                    $0.state == .pending
                }
                if pending == nil { Thread.sleep(forTimeInterval: 0.05) }
            }
            guard let pending else { throw HarnessError.timedOut("round \(round): the child's request never came") }
            record.update()
            let start = try record.serverTime()
            _ = try guardian.call(
                RulesMethods.answer, RequestAnswer(user: kid, id: pending.id, approve: true, seconds: 1))
            let end = try record.waitUntilUncovered(game, timeout: .seconds(10))
            samples.append(Double(Int32(bitPattern: end &- start)))
        }
        return samples
    }
}
