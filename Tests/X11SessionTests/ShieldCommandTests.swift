import Foundation
import SessionHarness
import XCTest

/// `screenward shield add|remove` against the real agent: the command line is the client
/// org.screenward.cli and changes its store screenward.cli.
final class ShieldCommandTests: XSessionTestCase {
    /// The ids `screenward shields --json` lists, each with its reasons as `app/store`.
    private func shieldedApplications(_ agent: AgentRun) throws -> [String: [String]] {
        let object =
            try JSONSerialization.jsonObject(with: Data(try agent.cli(["shields", "--json"]).utf8)) as? [String: Any]
        var result: [String: [String]] = [:]
        for item in object?["applications"] as? [[String: Any]] ?? [] {
            guard let id = item["id"] as? String else { continue }
            result[id] = (item["reasons"] as? [[String: Any]] ?? []).map {
                "\($0["app"] as? String ?? "?")/\($0["store"] as? String ?? "?")"
            }
        }
        return result
    }

    /// The error output of a `screenward` run that must fail.
    private func failure(_ agent: AgentRun, _ arguments: [String]) -> String {
        do {
            let output = try agent.cli(arguments)
            XCTFail("screenward \(arguments) succeeded: \(output)")
            return ""
        } catch {
            return "\(error)"
        }
    }

    func testShieldAddAndRemoveChangeTheCommandLinesStore() throws {
        let session = try startXSession()
        var environment = try catalogEnvironment(entries: [
            "editor.desktop": "[Desktop Entry]\nType=Application\nName=Editor\nExec=editor\nCategories=Office;\n",
            "chat.desktop": "[Desktop Entry]\nType=Application\nName=Chat\nExec=chat\nCategories=Chat;\n",
        ])
        environment["WORKLOG_HOME"] = temporary.appendingPathComponent("worklog").path
        let agent = try AgentRun(display: session.display, home: home, environment: environment)
        defer { agent.stop() }

        let added = try agent.cli(["shield", "add", "--app", "editor.desktop", "--app", "wmclass:Notes"])
        XCTAssertTrue(added.contains("Shielded by screenward.cli"), added)
        XCTAssertTrue(added.contains("editor.desktop") && added.contains("wmclass:Notes"), added)
        var shields = try shieldedApplications(agent)
        XCTAssertEqual(shields["editor.desktop"], ["org.screenward.cli/screenward.cli"], "\(shields)")
        XCTAssertEqual(shields["wmclass:Notes"], ["org.screenward.cli/screenward.cli"], "\(shields)")

        // Adding again changes nothing and says so.
        XCTAssertTrue(
            try agent.cli(["shield", "add", "--app", "editor.desktop"]).contains(
                "Already shielded by screenward.cli: editor.desktop"))

        let removed = try agent.cli(["shield", "remove", "--app", "editor.desktop"])
        XCTAssertFalse(removed.contains("editor.desktop"), removed)
        XCTAssertTrue(removed.contains("wmclass:Notes"), removed)
        shields = try shieldedApplications(agent)
        XCTAssertNil(shields["editor.desktop"], "\(shields)")
        XCTAssertNotNil(shields["wmclass:Notes"], "\(shields)")

        XCTAssertTrue(
            try agent.cli(["shield", "remove", "--app", "wmclass:Notes"]).contains(
                "Nothing is shielded by screenward.cli."))
        XCTAssertTrue(try shieldedApplications(agent).isEmpty)

        // Clear failures: an unknown id (the agent's message), one not shielded, too many.
        let unknown = failure(agent, ["shield", "add", "--app", "no-such-app.desktop"])
        XCTAssertTrue(unknown.contains("no application \"no-such-app.desktop\" is installed"), unknown)
        let notShielded = failure(agent, ["shield", "remove", "--app", "editor.desktop"])
        XCTAssertTrue(notShielded.contains("editor.desktop is not shielded by screenward.cli"), notShielded)
        let tooMany = failure(agent, ["shield", "add"] + (1...51).flatMap { ["--app", "wmclass:App\($0)"] })
        XCTAssertTrue(tooMany.contains("at most 50"), tooMany)

        // An application another app's store shields: the command says which store.
        try agent.allowAccess("org.example.worklog")
        let worklog = try ChildProcess(
            try ProjectPrograms.url(of: "worklog"), ["setup"], environment: agent.environment)
        worklog.closeInput()
        XCTAssertEqual(worklog.waitForExit(timeout: 30), 0, worklog.standardError)
        let other = failure(agent, ["shield", "remove", "--app", "chat.desktop"])
        XCTAssertTrue(
            other.contains(
                "chat.desktop is not shielded by screenward.cli; it is shielded by org.example.worklog/social"), other)

        // With the agent stopped, the command says so.
        agent.stop()
        let stopped = failure(agent, ["shield", "add", "--app", "editor.desktop"])
        XCTAssertTrue(stopped.contains("the Screenward agent is not running"), stopped)
    }

    /// `screenward block add|remove`: the blocked applications of the same store; a
    /// blocked application's window is closed, and comes back once unblocked.
    func testBlockAddAndRemoveChangeTheCommandLinesBlockedApplications() throws {
        let session = try startXSession()
        let environment = try catalogEnvironment(entries: [
            "game.desktop": "[Desktop Entry]\nType=Application\nName=Game\nExec=game\nCategories=Game;\n"
        ])
        let agent = try AgentRun(display: session.display, home: home, environment: environment)
        defer { agent.stop() }
        let running = try DemoApplications(display: session.display, windows: ["game.Game"])

        let added = try agent.cli(["block", "add", "--app", "game.desktop"])
        XCTAssertTrue(added.contains("Blocked by screenward.cli:") && added.contains("game.desktop"), added)
        XCTAssertNotNil(
            running.process.waitForExit(timeout: 15),
            "the blocked game still runs: \(agent.process.standardError.suffix(1500))")
        let shields =
            try JSONSerialization.jsonObject(with: Data(try agent.cli(["shields", "--json"]).utf8)) as? [String: Any]
        let game = (shields?["applications"] as? [[String: Any]])?.first { $0["id"] as? String == "game.desktop" }
        XCTAssertEqual(
            (game?["reasons"] as? [[String: Any]])?.map { $0["rule"] as? String }, ["blocked"],
            "\(String(describing: shields))")
        XCTAssertTrue(
            try agent.cli(["block", "add", "--app", "game.desktop"]).contains(
                "Already blocked by screenward.cli: game.desktop"))
        // Shielding and blocking are separate lists.
        let notShielded = failure(agent, ["shield", "remove", "--app", "game.desktop"])
        XCTAssertTrue(notShielded.contains("game.desktop is not shielded by screenward.cli"), notShielded)

        XCTAssertTrue(
            try agent.cli(["block", "remove", "--app", "game.desktop"]).contains(
                "Nothing is blocked by screenward.cli."))
        let again = try DemoApplications(display: session.display, windows: ["game.Game"])
        Thread.sleep(forTimeInterval: 1)
        XCTAssertTrue(again.process.isRunning, "an unblocked game is left alone")
        let notBlocked = failure(agent, ["block", "remove", "--app", "game.desktop"])
        XCTAssertTrue(
            notBlocked.contains("game.desktop is not blocked by screenward.cli; no other store blocks it either"),
            notBlocked)
    }
}
