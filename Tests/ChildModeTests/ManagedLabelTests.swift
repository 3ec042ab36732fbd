import Foundation
import Glibc
@_spi(Screenward) import ManagedSettings
import SessionHarness
import TestSupport
import XCTest

@testable import ScreenTimePolicy
@testable import ScreenwardCore

/// `Label(token)` for a managed child's app: the daemon works out what the app's token stands
/// for, and the session's agent, as the agents' user, draws it inside the app's window on the
/// child's display; the app (a real program of the child's, vetted as the installed app) hears
/// only that it was drawn, and a window another program of the child's made is refused.
final class ManagedLabelTests: XCTestCase {
    private var desktop: ManagedDesktop!
    private var fixture: DaemonFixture { desktop.fixture }
    private let app = "org.example.family"

    override func setUpWithError() throws {
        try ManagedDesktop.requirements()
        _ = try requireProgram("xwininfo", package: "x11-utils")
        desktop = try ManagedDesktop(fixture: try DaemonFixture())
    }

    override func tearDown() {
        desktop?.tearDown()
    }

    func testTheSessionsAgentDrawsTheChildsAppsLabelInTheAppsOwnWindowOnly() throws {
        let program = fixture.program("screenward-testwindow")
        try fixture.installApp(app, name: "Family", executables: [program])
        // The app holds .child and its token for the game, as a guardian's approval and the
        // picker would have left them.
        var token = ""
        try desktop.startManagedSession { [self] in
            fixture.stopDaemon()
            let home = ChildHomes(stateDirectory: fixture.state).home(for: desktop.uid)
            let minter = TokenMinter(secret: try DeviceSecret.loadOrCreate(at: home.deviceSecretURL))
            let ledger = try Ledger(url: home.ledgerURL)
            let grant = try ledger.authorize(client: app, member: "child", grantKey: "label-test", at: Date())
            let game = minter.applicationToken(for: AppIdentity(key: .windowClass("Game"), displayName: "Game"))
            let issued = ClientTokens(grant: grant, ledger: ledger).issue(
                .application, deviceToken: game.opaqueValue, label: "wmclass:Game")
            try ledger.recordIssuedTokens([issued], client: app)
            token = issued.token
            try fixture.startDaemon(environment: ["DBUS_SYSTEM_BUS_ADDRESS": desktop.bus.address])
        }

        // The child's app: its own window, and its label asked for in it.
        let family = try desktop.startAsKid(
            [program, "--window", "family.Family:Family"], environment: ["SCREENWARD_BUNDLE_ID": app])
        let window = try XCTUnwrap(try family.waitForOutputLines(1, timeout: 20).first)
        family.send("label \(window) \(token)")
        let answer = try waitForLabelAnswer(family)
        XCTAssertEqual(answer, "label shown \(window)", family.standardError)
        let tree = try desktop.runAsKid(["xwininfo", "-children", "-id", window])
        XCTAssertTrue(tree.output.contains("1 child:"), tree.output + tree.error)
        desktop.screenshot("label-child.png")

        // The game's window is another program's: refused, and nothing drawn in it.
        family.send("label \(desktop.windows[0]) \(token)")
        let refused = try waitForLabelAnswer(family, after: 1)
        XCTAssertTrue(refused.contains("label refused \(desktop.windows[0])"), refused)
        XCTAssertTrue(refused.contains("is not one \(app) made"), refused)
        let game = try desktop.runAsKid(["xwininfo", "-children", "-id", desktop.windows[0]])
        XCTAssertTrue(game.output.contains("0 children"), game.output + game.error)
    }

    /// The `index`-th answer (from 0) the app printed about a label.
    private func waitForLabelAnswer(_ app: ChildProcess, after index: Int = 0) throws -> String {
        var answers: [String] = []
        try desktop.waitFor("the app's label answered") {
            answers = app.outputLines.filter { $0.hasPrefix("label ") }
            return answers.count > index
        }
        return answers[index]
    }
}
