import Foundation
import SessionHarness
import XCTest

/// The Screen Time API through the real agent: the Worklog program's processes talk
/// to `screenward-agent` over its socket, and its monitor runs in its own process.
final class ScreenTimeAgentTests: XSessionTestCase {
    private func worklog(_ arguments: [String], _ environment: [String: String]) throws -> String {
        let run = try ChildProcess(try ProjectPrograms.url(of: "worklog"), arguments, environment: environment)
        run.closeInput()
        guard let status = run.waitForExit(timeout: 30) else { throw HarnessError.timedOut("worklog \(arguments)") }
        Thread.sleep(forTimeInterval: 0.05)
        guard status == 0 else {
            throw HarnessError.failed("worklog \(arguments) exited \(status): \(run.standardError)")
        }
        return run.outputLines.joined(separator: "\n")
    }

    private func waitFor(_ what: String, timeout: TimeInterval = 5, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while try !condition() {
            guard Date() < deadline else { return XCTFail("timed out waiting for \(what)") }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    private static func clock(_ date: Date) -> String {
        let parts = Calendar.current.dateComponents([.hour, .minute], from: date)
        return String(format: "%02d:%02d", parts.hour!, parts.minute!)
    }

    func testWorklogsMonitorClearsAndRestoresTheSocialStoreThroughTheAgent() throws {
        let session = try startXSession()
        var environment = try catalogEnvironment(entries: [:])
        environment["WORKLOG_HOME"] = temporary.appendingPathComponent("worklog").path
        let agent = try AgentRun(display: session.display, home: home, environment: environment)
        defer { agent.stop() }
        let env = agent.environment

        try agent.allowAccess("org.example.worklog")
        XCTAssertTrue(try worklog(["setup"], env).contains("authorised"))
        XCTAssertTrue(try worklog(["status"], env).contains("social: shielded"))
        let shields =
            try JSONSerialization.jsonObject(with: Data(try agent.cli(["shields", "--json"]).utf8)) as? [String: Any]
        let categories = (shields?["categories"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }.sorted()
        XCTAssertEqual(categories, ["Game", "Social"], "`screenward shields` names what Worklog's stores shield")
        let selection = try agent.cli(["select", "--for", "org.example.worklog", "--category", "Office"])
        XCTAssertTrue(selection.contains("categoryTokens"), selection)
        XCTAssertThrowsError(
            try agent.cli(["select", "--for", "org.example.other", "--category", "Office"]),
            "an app that is not authorised gets no tokens")

        // An evening running now: registering inside it starts it at once.
        let monitor = try ChildProcess(try ProjectPrograms.url(of: "worklog"), ["monitor"], environment: env)
        defer { monitor.stop() }
        let now = Date()
        _ = try worklog(
            [
                "allow-evenings", "--from", Self.clock(now.addingTimeInterval(-3600)), "--until",
                Self.clock(now.addingTimeInterval(3600)),
            ], env)
        try waitFor("the monitor to clear the Social store") {
            try worklog(["status"], env).contains("social: allowed")
        }
        XCTAssertTrue(try worklog(["status"], env).contains("gaming: shielded"), "the Gaming store is untouched")

        _ = try worklog(["stop"], env)
        try waitFor("the monitor to shield social apps again") {
            try worklog(["status"], env).contains("social: shielded")
        }

        // Each callback came once.
        let log = agent.process.standardError
        XCTAssertEqual(log.components(separatedBy: "evenings intervalDidStart").count - 1, 1, log)
        XCTAssertEqual(log.components(separatedBy: "evenings intervalDidEnd").count - 1, 1, log)

        // With no monitor running, the callback waits in the agent and comes when one attaches.
        monitor.stop()
        _ = try worklog(
            [
                "allow-evenings", "--from", Self.clock(now.addingTimeInterval(-3600)), "--until",
                Self.clock(now.addingTimeInterval(3600)),
            ], env)
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertTrue(try worklog(["status"], env).contains("social: shielded"), "no monitor ran the callback yet")
        let second = try ChildProcess(try ProjectPrograms.url(of: "worklog"), ["monitor"], environment: env)
        defer { second.stop() }
        try waitFor("the late callback to reach the new monitor") {
            try worklog(["status"], env).contains("social: allowed")
        }
    }
}
