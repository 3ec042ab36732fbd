import Foundation
import ScreenwardTesting
import SessionDisplay
import SessionHarness
import X11Session
import XCTest

/// No key and no click reaches a shielded application, not even in the moment the
/// window manager gives it the focus, before its shield takes the focus back.
final class ShieldInputTests: XSessionTestCase {
    static let rounds = 100

    func testNoKeyOrClickReachesAShieldedApplicationActivatedAndTypedAtOnce() throws {
        let scene = try startShieldScene()
        defer { scene.stop() }
        let display = scene.session.display
        let apps = try DemoApplications(
            display: display, windows: ["notes.Notes", "game.Game"], extraArguments: ["--report-keys"])
        let (notes, game) = (id(apps.windows[0]), id(apps.windows[1]))
        scene.wait("both windows managed") { scene.watcher.windows[notes] != nil && scene.watcher.windows[game] != nil }
        _ = try scene.agent.cli(["shield", "add", "--app", "game.desktop"])
        let shield = try scene.shield(over: game)
        scene.wait("the shield focused over the game") { scene.watcher.activeWindow == shield }

        let shielded = try play(rounds: Self.rounds, scene: scene, apps: apps, notes: notes, game: game, then: shield)
        XCTAssertEqual(shielded.keys + shielded.clicks, 0, "input reached the shielded game: \(shielded)")
        // The window manager did give the game the focus, round after round: the keys
        // were typed at a window that had it (else the check above proves nothing).
        XCTAssertGreaterThanOrEqual(
            shielded.focused, Self.rounds / 2, "the game was rarely focused at all: \(shielded)")

        // Unshielded, the same rounds do reach it (so the checks above can fail).
        _ = try scene.agent.cli(["shield", "remove", "--app", "game.desktop"])
        scene.wait("the shield gone") { scene.watcher.windows[shield]?.isViewable != true }
        let open = try play(rounds: 5, scene: scene, apps: apps, notes: notes, game: game, then: game)
        XCTAssertGreaterThan(open.keys, 0, "keys never reached the unshielded game: \(open)")
        XCTAssertGreaterThan(open.clicks, 0, "clicks never reached the unshielded game: \(open)")
    }

    private struct Received: CustomStringConvertible {
        var keys = 0
        var clicks = 0
        /// Rounds in which the game was given the focus.
        var focused = 0
        var description: String { "\(keys) keys, \(clicks) clicks, focused in \(focused) rounds" }
    }

    /// Each round: another window has the focus and keys are being typed (a stream of
    /// 40, about a millisecond apart, with the pointer resting over the game); the game is
    /// activated in the middle of it, as a taskbar would, and clicked at once. Returns
    /// what the game reported receiving.
    private func play(
        rounds: Int, scene: ShieldScene, apps: DemoApplications, notes: WindowID, game: WindowID, then settled: WindowID
    ) throws -> Received {
        let display = scene.session.display
        let xdotool = try requireTool("xdotool")
        var received = Received()
        for round in 0..<rounds {
            scene.connection.requestActivation(of: notes)
            scene.wait("round \(round): notes active") { scene.watcher.activeWindow == notes }
            let start = apps.process.outputLines.count
            let typing = try ChildProcess(
                xdotool,
                [
                    "mousemove", "--window", "\(game.rawValue)", "30", "30", "type", "--delay", "1",
                    String(repeating: "qwerty0123", count: 4),
                ],
                environment: ["DISPLAY": display])
            typing.closeInput()
            // The activation lands in the middle of the stream: once notes has its first
            // keys, and 0 to 10 ms later.
            let typingStarted = Date().addingTimeInterval(10)
            while !apps.process.outputLines.dropFirst(start).contains(where: {
                $0.hasPrefix("key ") && $0.hasSuffix(" \(notes)")
            }), Date() < typingStarted {
                Thread.sleep(forTimeInterval: 0.0005)
            }
            Thread.sleep(forTimeInterval: 0.005 * Double(round % 3))
            scene.connection.requestActivation(of: game)
            let clicking = try ChildProcess(
                xdotool, ["click", "--repeat", "3", "--delay", "2", "1"], environment: ["DISPLAY": display])
            clicking.closeInput()
            XCTAssertEqual(typing.waitForExit(timeout: 10), 0, typing.standardError)
            XCTAssertEqual(clicking.waitForExit(timeout: 10), 0, clicking.standardError)
            scene.wait("round \(round): settled on \(settled)") { scene.watcher.activeWindow == settled }
            scene.loop.iterate(until: { false }, timeout: .milliseconds(30))
            let lines = apps.process.outputLines.dropFirst(start).filter { $0.hasSuffix(" \(game)") }
            received.keys += lines.filter { $0.hasPrefix("key ") }.count
            received.clicks += lines.filter { $0.hasPrefix("button ") }.count
            if lines.contains(where: { $0.hasPrefix("focus ") }) { received.focused += 1 }
        }
        return received
    }
}

/// An agent killed while it held windows (kill -9: its grabs end with it, the emptied
/// input regions would not) gives them back their input when it starts again.
final class InputHoldRecoveryTests: XSessionTestCase {
    func testWindowsAKilledAgentHeldGetTheirInputBack() throws {
        let scene = try startShieldScene()
        defer { scene.stop() }
        let display = scene.session.display
        let apps = try DemoApplications(display: display, windows: ["game.Game"], extraArguments: ["--report-keys"])
        let game = id(apps.windows[0])
        _ = try scene.agent.cli(["shield", "add", "--app", "game.desktop"])
        _ = try scene.shield(over: game)

        func clickReachesGame() throws -> Bool {
            let before = apps.process.outputLines.count
            try runTool(
                "xdotool",
                [
                    "windowactivate", "--sync", "\(game.rawValue)", "mousemove", "--window", "\(game.rawValue)", "30",
                    "30", "click", "1",
                ], display: display)
            scene.loop.iterate(until: { false }, timeout: .milliseconds(200))
            return apps.process.outputLines.dropFirst(before).contains("button 1 \(game)")
        }
        func killAgent(_ agent: AgentRun) {
            agent.process.signal(SIGKILL)
            XCTAssertEqual(agent.process.waitForTermination(timeout: 10), .signalled(SIGKILL))
        }

        // Killed while covering: the shield is gone with it, and the game gets no click.
        killAgent(scene.agent)
        XCTAssertFalse(
            try clickReachesGame(), "the held input region is left behind (this is what the next run repairs)")

        // Started again while the game is still shielded: covered again; lifted, the game
        // gets its own input region back (the one recorded, not the empty one).
        let second = try AgentRun(display: display, home: home, environment: scene.agent.environment)
        _ = try scene.shield(over: game, agent: second)
        _ = try second.cli(["shield", "remove", "--app", "game.desktop"])
        scene.wait("clicks reach the game again") { (try? clickReachesGame()) == true }

        // Killed while covering, and the game is no longer shielded when the next run
        // starts: that run gives it back its input at once.
        _ = try second.cli(["shield", "add", "--app", "game.desktop"])
        _ = try scene.shield(over: game, agent: second)
        killAgent(second)
        try apps.command("class \(game) other Other")
        let third = try AgentRun(display: display, home: home, environment: scene.agent.environment)
        defer { _ = third.stop() }
        XCTAssertTrue(
            try clickReachesGame(),
            "a window an earlier run held was not given its input back: \(third.process.standardError.suffix(1500))")
        XCTAssertTrue(third.process.standardError.contains("gave \(game) back the input a previous run held"))
    }
}
