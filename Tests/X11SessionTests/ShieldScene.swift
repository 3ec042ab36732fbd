import Foundation
import GLibRuntime
import ScreenwardCore
import ScreenwardTesting
import SessionDisplay
import SessionHarness
import TestSupport
import X11Session
import XCTest

/// A session, a catalog with a game and a notes app, the agent, and the test's own
/// view of the screen.
final class ShieldScene {
    let session: PrivateXSession
    let agent: AgentRun
    private var ownConnection: XConnection?
    let loop = MainLoop()
    private var ownWatcher: ClientWindowWatcher?

    init(session: PrivateXSession, agent: AgentRun) throws {
        self.session = session
        self.agent = agent
        let connection = try XConnection(displayName: session.display)
        ownConnection = connection
        ownWatcher = ClientWindowWatcher(connection: connection, loop: loop)
        ownWatcher?.start { [weak self] event in
            if case .activated(let window, _) = event {
                self?.activations += 1
                if let window { self?.activationsOf[window, default: 0] += 1 }
            }
        }
    }

    /// `_NET_ACTIVE_WINDOW` changes seen so far.
    private(set) var activations = 0
    /// How often each window was made the active window.
    private(set) var activationsOf: [WindowID: Int] = [:]

    /// Activates `target` (as Alt+Tab would) and waits until the shield has taken the
    /// focus back: after the activation, not merely still holding it from before.
    func activate(
        _ target: WindowID, expectingShield shield: WindowID, _ message: String = "the shield takes the focus back"
    ) {
        let before = activations
        connection.requestActivation(of: target)
        wait(message) { activations > before && watcher.activeWindow == shield }
        waitUntilSteady(shield, message)
    }

    /// Waits until `shield` has held the focus for a moment with no other change, so
    /// keys sent next reach it (not the window a late activation would give them to).
    func waitUntilSteady(_ shield: WindowID, _ message: String) {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            let seen = activations
            loop.iterate(until: { false }, timeout: .milliseconds(300))
            if activations == seen && watcher.activeWindow == shield { return }
        }
        XCTFail("timed out: \(message), steadily; agent log: \(agent.process.standardError.suffix(1500))")
    }

    var connection: XConnection { ownConnection! }
    var watcher: ClientWindowWatcher { ownWatcher! }

    /// In order: the loop lets go of the connection, the connection closes while
    /// the server still runs (Xlib ends the process on a dead one), then the server.
    func stop() {
        ownWatcher?.stop()
        ownWatcher = nil
        _ = agent.stop()
        ownConnection = nil
        session.stop()
    }

    /// The agent's `covered` list from `screenward shields --json` (of `agent`, by
    /// default the scene's own).
    func covered(agent: AgentRun? = nil) throws -> [CoveredWindow] {
        let data = Data(try (agent ?? self.agent).cli(["shields", "--json"]).utf8)
        struct Listing: Decodable { var covered: [CoveredWindow]? }
        return try JSONDecoder().decode(Listing.self, from: data).covered ?? []
    }

    /// Runs the loop until `condition` holds; fails the test with `message` if it never does.
    @discardableResult
    func wait(_ message: @autoclosure () -> String, timeout: Duration = .seconds(10), until condition: () -> Bool)
        -> Bool
    {
        let held = loop.iterate(until: condition, timeout: timeout)
        if !held { XCTFail("timed out: \(message()); agent log: \(agent.process.standardError.suffix(1500))") }
        return held
    }

    /// Waits until the agent (by default the scene's own) says `window` is covered, and
    /// returns its shield's id.
    func shield(over window: WindowID, agent: AgentRun? = nil) throws -> WindowID {
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if let entry = try covered(agent: agent).first(where: { $0.window == "\(window)" }),
                let raw = UInt(entry.shieldWindow.dropFirst(2), radix: 16)
            {
                return WindowID(raw)
            }
            loop.iterate(until: { false }, timeout: .milliseconds(50))
        }
        throw HarnessError.timedOut(
            "\(window) was never covered: \((agent ?? self.agent).process.standardError.suffix(2000))")
    }
}

extension XSessionTestCase {
    /// A session with openbox, a catalog with a game (category Game) and a notes app
    /// (Office), and the real agent on it.
    func startShieldScene(
        verbose: Bool = false, extraEntries: [String: String] = [:], extraEnvironment: [String: String] = [:],
        agentArguments: [String] = []
    ) throws -> ShieldScene {
        let session = try startXSession()
        let environment = try catalogEnvironment(
            entries: [
                "game.desktop": "[Desktop Entry]\nType=Application\nName=Game\nExec=game\nCategories=Game;\n",
                "notes.desktop": "[Desktop Entry]\nType=Application\nName=Notes\nExec=notes\nCategories=Office;\n",
            ].merging(extraEntries) { $1 }
        ).merging(extraEnvironment) { $1 }
        let agent = try AgentRun(
            display: session.display, home: home, environment: environment, verbose: verbose, arguments: agentArguments)
        return try ShieldScene(session: session, agent: agent)
    }

    /// Saves the screen as `name` in $SCREENWARD_SCREENSHOTS (the README's) or the temporary folder.
    func screenshot(_ name: String, of scene: ShieldScene) {
        screenshot(name, on: scene.session.display)
    }

    func screenshot(_ name: String, on display: String) {
        let folder = URL(
            fileURLWithPath: ProcessInfo.processInfo.environment["SCREENWARD_SCREENSHOTS"] ?? NSTemporaryDirectory())
        let path = folder.appendingPathComponent(name).path
        if (try? toolOutput("import", ["-window", "root", path], display: display)) != nil {
            print("screenshot: \(path)")
        }
    }

    /// A window id as the test window program prints it (`0x…`).
    func id(_ text: String) -> WindowID { WindowID(UInt(text.dropFirst(2), radix: 16)!) }

    /// Runs an X tool (xdotool, wmctrl, xprop) on `display` and returns what it printed.
    func toolOutput(_ program: String, _ arguments: [String], display: String) throws -> String {
        let url = try requireTool(program)
        let child = try ChildProcess(url, arguments, environment: ["DISPLAY": display])
        child.closeInput()
        guard child.waitForExit(timeout: 10) == 0 else {
            throw HarnessError.failed("\(program) \(arguments): \(child.standardError)")
        }
        Thread.sleep(forTimeInterval: 0.05)  // let the pipe hand over the last output
        return child.outputLines.joined(separator: "\n")
    }

    func runTool(_ program: String, _ arguments: [String], display: String) throws {
        _ = try toolOutput(program, arguments, display: display)
    }
}

/// Homework's two shield colours as drawn on screen, and where to look for them.
enum ShieldColours {
    static let homeworkGreen = ScreenCapture.Pixel(red: 46, green: 125, blue: 51)
    static let homeworkAmber = ScreenCapture.Pixel(red: 250, green: 168, blue: 38)

    /// The colour just inside the shield's top left corner (its background).
    static func corner(of shield: WindowID, in scene: ShieldScene) -> ScreenCapture.Pixel? {
        guard let frame = scene.watcher.windows[shield]?.frame else { return nil }
        return ScreenCapture(
            connection: scene.connection, region: ScreenRect(x: frame.x + 4, y: frame.y + 4, width: 1, height: 1))?
            .pixel(x: frame.x + 4, y: frame.y + 4)
    }
}
