import Foundation
import SessionHarness
import TestSupport
import XCTest

/// Apps' extensions started by the agent when it needs them, as the system does on
/// Apple's platforms: nothing of the app runs beforehand, and the extension leaves on
/// its own once idle.
final class ExtensionLaunchTests: XSessionTestCase {

    private func waitFor(_ what: String, timeout: TimeInterval = 15, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while try !condition() {
            guard Date() < deadline else { throw HarnessError.timedOut(what) }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// Installs `manifest` as the person's own app (`$XDG_DATA_HOME/screenward/apps`).
    private func install(_ identifier: String, _ manifest: String, dataHome: URL) throws {
        let folder = dataHome.appendingPathComponent("screenward/apps", isDirectory: true)
        try FileManager.default.createDirectory(
            at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        try Data(manifest.utf8).write(to: folder.appendingPathComponent("\(identifier).json"))
    }

    func testWorklogsInstalledMonitorIsStartedForItsCallbackAndLeavesWhenIdle() throws {
        let session = try startXSession()
        let dataHome = temporary.appendingPathComponent("data", isDirectory: true)
        var environment = try catalogEnvironment(entries: [:])
        // The extension gets a clean environment with the person's HOME: Worklog keeps its selections there.
        environment["HOME"] = temporary.path
        environment["XDG_DATA_HOME"] = dataHome.path
        let worklog = try ProjectPrograms.url(of: "worklog").resolvingSymlinksInPath().path
        try install(
            "org.example.worklog",
            #"""
            {"format": 1, "bundleIdentifier": "org.example.worklog", "displayName": "Worklog", "extensions": \#
            [{"point": "device-activity-monitor", "executable": "\#(worklog)", "arguments": ["monitor"]}]}
            """#,
            dataHome: dataHome)
        let agent = try AgentRun(display: session.display, home: home, environment: environment)
        defer { agent.stop() }
        let env = agent.environment

        try agent.allowAccess("org.example.worklog")
        XCTAssertTrue(try runProject("worklog", ["setup"], env).contains("authorised"))
        XCTAssertTrue(try runProject("worklog", ["status"], env).contains("social: shielded"))
        // No Worklog process runs now. An evening running now starts at once: the agent
        // starts the monitor extension for its callback.
        let now = Date()
        _ = try runProject(
            "worklog",
            [
                "allow-evenings", "--from", Self.hourAndMinute(now.addingTimeInterval(-3600)), "--until",
                Self.hourAndMinute(now.addingTimeInterval(3600)),
            ], env)
        try waitFor("the launched monitor to clear the Social store") {
            try runProject("worklog", ["status"], env).contains("social: allowed")
        }
        XCTAssertTrue(
            try runProject("worklog", ["status"], env).contains("gaming: shielded"), "the Gaming store is untouched")
        let log = { agent.process.standardError }
        XCTAssertTrue(log().contains("started org.example.worklog's device-activity-monitor extension"), log())

        // Idle, it leaves on its own; the run is recorded.
        try waitFor("the monitor to exit when idle") {
            log().contains("device-activity-monitor extension (pid") && log().contains("exited when idle")
        }
        let listing = try agent.cli(["extensions", "--json"])
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(listing.utf8)) as? [String: Any], listing)
        let runs = try XCTUnwrap(report["runs"] as? [[String: Any]], listing)
        XCTAssertEqual(runs.first?["outcome"] as? String, "exited", listing)
        let apps = try XCTUnwrap(report["apps"] as? [[String: Any]], listing)
        XCTAssertEqual(
            apps.first { $0["bundleIdentifier"] as? String == "org.example.worklog" }?["running"] as? [String], [],
            listing)

        // The end of the evening comes from a new launch; each callback came once.
        _ = try runProject("worklog", ["stop"], env)
        try waitFor("a new launch to shield social apps again") {
            try runProject("worklog", ["status"], env).contains("social: shielded")
        }
        XCTAssertEqual(log().components(separatedBy: "evenings intervalDidStart").count - 1, 1, log())
        XCTAssertEqual(log().components(separatedBy: "evenings intervalDidEnd").count - 1, 1, log())
    }

    // MARK: A misbehaving monitor

    /// Worklog with `script` installed as its monitor; its evening callback comes due.
    /// Returns the agent and how to list the extensions' runs.
    private func misbehavingMonitor(_ script: String) throws -> (
        AgentRun, () throws -> [[String: Any]], PrivateXSession
    ) {
        let session = try startXSession()
        let dataHome = temporary.appendingPathComponent("data", isDirectory: true)
        let program = temporary.appendingPathComponent("bad-monitor")
        try Data("#!/bin/sh\n\(script)\n".utf8).write(to: program)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: program.path)
        var environment = try catalogEnvironment(entries: [:])
        environment["HOME"] = temporary.path
        environment["XDG_DATA_HOME"] = dataHome.path
        try install(
            "org.example.worklog",
            #"""
            {"format": 1, "bundleIdentifier": "org.example.worklog", "displayName": "Worklog", "extensions": \#
            [{"point": "device-activity-monitor", "executable": "\#(program.path)"}]}
            """#,
            dataHome: dataHome)
        let agent = try AgentRun(display: session.display, home: home, environment: environment)
        let env = agent.environment
        try agent.allowAccess("org.example.worklog")
        _ = try runProject("worklog", ["setup"], env)
        let now = Date()
        _ = try runProject(
            "worklog",
            [
                "allow-evenings", "--from", Self.hourAndMinute(now.addingTimeInterval(-3600)), "--until",
                Self.hourAndMinute(now.addingTimeInterval(3600)),
            ], env)
        let runs = {
            let listing = try agent.cli(["extensions", "--json"])
            let report = try XCTUnwrap(
                JSONSerialization.jsonObject(with: Data(listing.utf8)) as? [String: Any], listing)
            return try XCTUnwrap(report["runs"] as? [[String: Any]], listing)
        }
        return (agent, runs, session)
    }

    /// The monitor fails twice (a retry), then the callback is recorded as failed, once,
    /// and nothing is started again; the owner goes on.
    private func expectTwoFailuresThenTheCallbackRecordedAsFailed(
        _ script: String, outcome: String, detail: String, timeout: TimeInterval = 15
    ) throws {
        let (agent, runs, session) = try misbehavingMonitor(script)
        defer {
            agent.stop()
            withExtendedLifetime(session) {}
        }
        try waitFor("the callback recorded as failed", timeout: timeout) {
            try runs().contains { $0["outcome"] as? String == "callback-failed" }
        }
        Thread.sleep(forTimeInterval: 1)
        let all = try runs()
        let launches = all.filter {
            $0["point"] as? String == "device-activity-monitor" && $0["outcome"] as? String != "callback-failed"
        }
        XCTAssertEqual(launches.count, 2, "one run and one retry: \(all)")
        for launch in launches {
            XCTAssertEqual(launch["outcome"] as? String, outcome, "\(launch)")
            XCTAssertTrue((launch["detail"] as? String ?? "").contains(detail), "\(launch)")
        }
        let failed = all.filter { $0["outcome"] as? String == "callback-failed" }
        XCTAssertEqual(failed.count, 1, "\(all)")
        XCTAssertTrue((failed.first?["detail"] as? String ?? "").contains("intervalDidStart"), "\(failed)")
        XCTAssertTrue(
            agent.process.isRunning,
            """
            the agent goes on: \(agent.process.waitForExit(timeout: 1).map { "exit \($0)" } ?? "") \
            \(agent.process.standardError)
            """
        )
        XCTAssertEqual(try agent.cli(["status"]).isEmpty, false)
    }

    func testAMonitorThatCrashesIsRetriedOnceThenItsCallbackIsRecordedAsFailed() throws {
        try expectTwoFailuresThenTheCallbackRecordedAsFailed("exit 3", outcome: "crashed", detail: "status 3")
    }

    func testAMonitorThatPrintsWithoutEndIsKilled() throws {
        try expectTwoFailuresThenTheCallbackRecordedAsFailed(
            "exec yes garbage", outcome: "killed", detail: "KiB of output")
    }

    func testAMonitorThatHangsIsKilledAfterItsPatience() throws {
        try expectTwoFailuresThenTheCallbackRecordedAsFailed(
            "exec sleep 600", outcome: "killed", detail: "did not acknowledge", timeout: 30)
    }

    // MARK: A lying monitor: stopped as soon as it lies

    /// A monitor in Python that connects as Worklog's and sends `line` (bytes), then waits.
    private static func lyingMonitor(sending line: String) -> String {
        """
        exec python3 - <<'PY'
        import json, os, socket, time
        client = os.environ["SCREENWARD_BUNDLE_ID"]
        s = socket.socket(socket.AF_UNIX)
        s.connect(os.environ["SCREENWARD_SOCKET"])
        s.sendall(\(line))
        time.sleep(600)
        PY
        """
    }

    func testAMonitorThatSendsAMalformedMessageIsKilled() throws {
        _ = try requireProgram("python3", package: "python3")
        try expectTwoFailuresThenTheCallbackRecordedAsFailed(
            Self.lyingMonitor(sending: #"b"this is not a message\n""#), outcome: "killed", detail: "not a message")
    }

    func testAMonitorThatSendsAnOversizedMessageIsKilled() throws {
        _ = try requireProgram("python3", package: "python3")
        try expectTwoFailuresThenTheCallbackRecordedAsFailed(
            Self.lyingMonitor(sending: #"b'{"id": 1, "method": "store.change", "body": "' + b"x" * (2 << 20)"#),
            outcome: "killed",
            detail: "longer than the limit")
    }

    /// It claims a token Worklog was never given (as another app's would be): refused, and
    /// the monitor is stopped; the Social store is untouched.
    func testAMonitorThatClaimsATokenItWasNeverGivenIsKilled() throws {
        _ = try requireProgram("python3", package: "python3")
        let request =
            #"""
            (json.dumps({"id": 1, "client": client, "method": "store.change", "body": {"name": "social", \#
            "settings": [{"shieldApplications": {"_0": ["bm90LXdvcmtsb2dzLXRva2Vu"]}}]}}) + "\n").encode()
            """#
        try expectTwoFailuresThenTheCallbackRecordedAsFailed(
            Self.lyingMonitor(sending: request), outcome: "killed", detail: "token it was never given")
    }

    func testAMonitorThatAllocatesWithoutEndRunsOutOfMemory() throws {
        _ = try requireTool("python3")
        try expectTwoFailuresThenTheCallbackRecordedAsFailed(
            "exec python3 -c 'blocks = []\nwhile True: blocks.append(bytearray(16 << 20))'", outcome: "crashed",
            detail: "status 1")
    }
}
