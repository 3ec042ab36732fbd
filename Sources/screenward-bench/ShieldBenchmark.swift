import ArgumentParser
import Foundation
import ScreenwardTesting
import SessionDisplay
import SessionHarness
import X11Session

/// Latency from a shielded window's activation to its shield being mapped over it
/// and holding the focus, through the real agent under Xvfb + openbox.
///
/// The truth is the X server's record. A sample begins at the first
/// `_NET_ACTIVE_WINDOW` change after the request (server milliseconds), and ends
/// when the shield over that window is viewable with exactly the window's frame
/// (decorations included, as the agent places it) and `_NET_ACTIVE_WINDOW` names
/// it (see ShieldRecord). Two kinds of activation: a covered window activated
/// again (Alt+Tab, a taskbar click), and a new window of a shielded application
/// appearing, from the moment the window manager maps it (the `WM_STATE` it sets on
/// it as it does), and, stricter, from the moment it adds it to `_NET_CLIENT_LIST`
/// (it starts managing it). A new window's sample waits for that window's own
/// shield, which the agent then names in `screenward shields --json`.
struct ShieldBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shield",
        abstract: """
            Shielded window activation → shield over it, mapped and focused (real agent, X server timestamps).
            """)

    /// The targets: within one 60 Hz frame or so, at the 99th percentile.
    enum Targets {
        static let activation = Target(
            figure: "covered window activated → shield focused, p99", limit: 20, unit: "ms", digits: 0)
        static let newWindowMapped = Target(
            figure: "new window mapped → its shield focused, p99", limit: 20, unit: "ms", digits: 0)
        static let newWindowManaged = Target(
            figure: "new window managed → its shield focused, p99", limit: 20, unit: "ms", digits: 0)
    }

    @Option(help: "Activations of a covered window.")
    var activations = 120
    @Option(help: "New windows of a shielded application.")
    var newWindows = 30
    @Option(help: "Directory the figures are written to, as JSON.")
    var output = "bench-results"
    @Flag(
        help:
            """
            Run the agent with --verbose, save its log next to the figures, and print the X server's record of \
            slow samples.
            """
    )
    var trace = false

    func validate() throws {
        guard activations >= 1, newWindows >= 0 else {
            throw ValidationError("--activations ≥ 1, --new-windows ≥ 0")
        }
    }

    func run() throws {
        let session = try PrivateXSession()
        let catalog = try GameCatalog()
        defer { catalog.remove() }
        let environment = catalog.environment

        let windows = try DemoApplications(display: session.display, windows: ["notes.Notes", "game.Game"])
        let (notes, game) = (windows.windows[0], windows.windows[1])
        let driver = try FocusDriver(display: session.display)
        let record = try ShieldRecord(display: session.display)
        let agent = try AgentRun(display: session.display, home: catalog.home, environment: environment, verbose: trace)
        defer { agent.stop() }
        let verdicts: Verdicts
        do {
            verdicts = try measureAll(
                session: session, agent: agent, driver: driver, record: record, notes: notes, game: game)
            if trace { saveAgentLog(agent) }
        } catch {
            if trace { saveAgentLog(agent) }
            throw error
        }
        try verdicts.exitIfMissed()
    }

    private func measureAll(
        session: PrivateXSession, agent: AgentRun, driver: FocusDriver, record: ShieldRecord, notes: String,
        game: String
    ) throws -> Verdicts {
        print(
            """
            Screenward shield benchmark on \(session.display) (Xvfb + openbox): \(activations) activations, \
            \(newWindows) new windows
            """
        )

        _ = try agent.cli(["shield", "add", "--app", "game.desktop"])
        let shield = try waitForCover(of: game, agent: agent)
        let gameID = try windowID(game)
        var unstamped = 0

        // A covered window activated again: its own shield, known from the start.
        var again: [Double] = []
        for _ in 0..<activations {
            try driver.activate(notes)
            let span = try measure(driver: driver, record: record, shield: shield) {
                driver.connection.requestActivation(of: gameID)
                return gameID
            }
            if !span.stamped { unstamped += 1 }
            again.append(span.milliseconds)
        }

        // New windows of the shielded application, each mapped and focused by openbox;
        // each sample waits for the new window's own shield.
        driver.log.recordMaps()
        var managed: [Double] = []
        var mapped: [Double] = []
        for _ in 0..<newWindows {
            try driver.activate(notes)
            var created: DemoApplications?
            let span = try measure(driver: driver, record: record, fromClientList: true) {
                let window = try DemoApplications(display: session.display, windows: ["game.Game"])
                created = window
                return try windowID(window.windows[0])
            }
            guard let created else { throw HarnessError.failed("no new window") }
            // The shield that ended the sample must be the one the agent says covers the window.
            let covering = try coveringShield(of: created.windows[0], agent: agent)
            guard covering == span.shield else {
                throw HarnessError.failed(
                    """
                    the shield that took the focus over \(created.windows[0]), \(span.shield), is not the one the \
                    agent covers it with (\(covering.map { "\($0)" } ?? "none"))
                    """
                )
            }
            if !span.stamped { unstamped += 1 }
            managed.append(span.milliseconds)
            if let mapTime = driver.log.mapTimes[try windowID(created.windows[0])] {
                mapped.append(Double(Int32(bitPattern: span.end &- mapTime)))
            }
            if trace {
                print(
                    """
                    new window: \(span.milliseconds) ms from the client list, \
                    \(mapped.last.map { "\($0)" } ?? "?") ms from its map
                    """
                )
            }
            // Close it again, so the screen does not fill up with windows, and let the
            // window manager and the agent settle: the client list changes as the window
            // and its shield go, and as the agent makes its next spare shield; those
            // changes must not start the next sample.
            created.process.closeInput()
            created.process.stop()
            try settleClientList(driver)
        }

        var figures: [String: Any] = ["date": ISO8601DateFormatter().string(from: Date())]
        var verdicts = Verdicts()
        print("")
        for (name, samples, target) in [
            ("activation", again, Targets.activation), ("new_window_mapped", mapped, Targets.newWindowMapped),
            ("new_window_managed", managed, Targets.newWindowManaged),
        ] where !samples.isEmpty {
            let sorted = samples.sorted()
            func percentile(_ p: Double) -> Double { screenward_bench.percentile(p, of: sorted) }
            let label =
                switch name {
                case "activation": "covered window activated → shield focused"
                case "new_window_mapped": "new window mapped (WM_STATE) → its shield mapped and focused"
                default: "new window managed (client list) → its shield mapped and focused"
                }
            print(
                """
                  \(label), \(sorted.count) times (ms): p50 \(format(percentile(0.5), 0)), p90 \
                \(format(percentile(0.9), 0)), p99 \(format(percentile(0.99), 0)), max \(format(sorted.last!, 0))
                """
            )
            figures[name] = [
                "count": sorted.count, "p50_ms": percentile(0.5), "p90_ms": percentile(0.9), "p99_ms": percentile(0.99),
                "max_ms": sorted.last!,
            ]
            verdicts.check(target, percentile(0.99))
        }
        print("  a sample ends when the shield over that window has its frame, is mapped and holds the focus;")
        print(
            """
              \(unstamped) of \(again.count + managed.count) were completed by a move or map after the focus (end \
            read at once from the server).
            """
        )
        print(
            """
              X server time has millisecond resolution; for comparison, timekpr-nExT acts on running applications \
            at its 3-second poll.
            """
        )
        figures["completed_after_focus"] = unstamped
        verdicts.printLines()
        verdicts.record(in: &figures)
        let url = try writeFigures(figures, name: "shield", to: output)
        print("Figures written to \(url.path)")
        return verdicts
    }

    private func saveAgentLog(_ agent: AgentRun) {
        let url = URL(fileURLWithPath: output).appendingPathComponent("shield-agent.log")
        try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try? agent.process.standardError.write(to: url, atomically: true, encoding: .utf8)
        print("The agent's log: \(url.path)")
    }

    private func measure(
        driver: FocusDriver, record: ShieldRecord, shield: WindowID? = nil, fromClientList: Bool = false,
        _ act: () throws -> WindowID
    ) throws -> ShieldSpan {
        try measureShieldSpan(
            driver: driver, record: record, shield: shield, fromClientList: fromClientList, trace: trace, act)
    }
}
