import Foundation
import Glibc
import SessionHarness
import TestSupport
import XCTest

@testable import ScreenwardCore

/// Homework in an account a guardian manages, as the WWDC21 talk tells it: set up once by
/// a guardian at the child's desktop, then nothing of it runs in the child's session.
/// The system daemon starts its extensions when it needs them, as a system user of their
/// own, and the child, a real user with a shell, cannot signal, trace or read them.
final class ManagedExtensionTests: XCTestCase {
    private var desktop: ManagedDesktop!
    private var fixture: DaemonFixture { desktop.fixture }
    private let homework = "org.example.homework"

    override func setUpWithError() throws {
        try ManagedDesktop.requirements()
        for (program, package) in [("strace", "strace"), ("xdotool", "xdotool")] {
            _ = try requireProgram(program, package: package)
        }
        desktop = try ManagedDesktop(fixture: try DaemonFixture(), windows: ["game.Game:Game", "notes.Notes:Notes"])
    }

    override func tearDown() {
        desktop?.tearDown()
    }

    private static func clock(_ date: Date) -> String {
        let parts = Calendar.current.dateComponents([.hour, .minute], from: date)
        return String(format: "%02d:%02d", parts.hour!, parts.minute!)
    }

    /// Installs Homework for every user with its three extensions (`monitor` replaces its
    /// monitor's command, for a misbehaving one; `report` adds a report extension).
    private func installHomework(monitor: [String]? = nil, report: [String]? = nil) throws {
        let program = fixture.program("homework")
        var extensions = [
            "device-activity-monitor": monitor ?? [program, "monitor"],
            "shield-configuration": [program, "configuration"],
            "shield-action": [program, "actions"],
        ]
        if let report { extensions["device-activity-report"] = report }
        try fixture.installApp(homework, name: "Homework", executables: [program], extensions: extensions)
    }

    /// `homework setup --child …` for the child, from a guardian's own account (`screenward app
    /// run --user`: the apps named by id, which the child's own Homework may not do); returns
    /// the guardian's login name.
    @discardableResult
    private func setUpHomework() throws -> String {
        let guardian = try fixture.users.add("guard", groups: [fixture.guardianGroup])
        let now = Date()
        let setup = try fixture.screenward(
            as: guardian,
            [
                "app", "run", "--user", desktop.kid, "--", fixture.program("homework"), "setup", "--child",
                "--discourage", "wmclass:Game", "--encourage", "wmclass:Notes", "--threshold", "3s", "--from",
                Self.clock(now.addingTimeInterval(-3600)), "--until", Self.clock(now.addingTimeInterval(3600)),
            ])
        XCTAssertEqual(setup.status, 0, setup.output + setup.error)
        XCTAssertTrue(setup.output.contains("Homework discourages wmclass:Game"), setup.output + setup.error)
        return guardian
    }

    private var daemonLog: String { fixture.daemon?.standardError ?? "" }

    private func uid(of user: String) throws -> UInt32 {
        try XCTUnwrap(
            UInt32(
                try fixture.users.run(as: "root", ["id", "-u", user]).output.trimmingCharacters(
                    in: .whitespacesAndNewlines)))
    }

    /// The runs of the child's extensions, as a guardian sees them (`screenward extensions --user`).
    private func runs() throws -> [[String: Any]] {
        let listed = try fixture.screenward(
            as: "root", ["extensions", "--user", desktop.kid, "--json", "--runs", "100"])
        guard listed.status == 0,
            let report = try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [String: Any],
            let runs = report["runs"] as? [[String: Any]]
        else { throw LocalUsersError(description: "screenward extensions --user: \(listed.output) \(listed.error)") }
        return runs
    }

    private static func outcome(_ run: [String: Any]) -> String? { run["outcome"] as? String }
    private static func point(_ run: [String: Any]) -> String? { run["point"] as? String }

    func testHomeworkRunsForTheChildWithNothingOfItsOwnRunningAndTheChildCannotTouchIt() throws {
        try installHomework()
        try desktop.startManagedSession()
        try setUpHomework()
        let program = fixture.program("homework")
        XCTAssertTrue(
            RunningPrograms.processes(running: program).allSatisfy { $0.uid != desktop.uid },
            "setup has ended; nothing of Homework runs as the child")

        // intervalDidStart: the daemon starts the monitor, which shields the game with what
        // the guardian chose; the agent's report starts the data source: Homework's green.
        try desktop.waitFor("the shield over the game") { desktop.currentAgentCovers(1) }
        let game = try desktop.geometry(of: desktop.windows[0])
        func isNear(_ red: Int, _ green: Int, _ blue: Int) -> Bool {
            guard let pixel = desktop.pixel(x: game.x + 4, y: game.y + 4) else { return false }
            return abs(pixel.red - red) + abs(pixel.green - green) + abs(pixel.blue - blue) < 20
        }
        try desktop.waitFor("Homework's green from the data source the daemon started") { isNear(46, 125, 51) }
        desktop.screenshot("managed-homework-shield.png")
        for point in ["device-activity-monitor", "shield-configuration"] {
            XCTAssertTrue(
                daemonLog.contains("started \(homework)'s \(point) extension"), String(daemonLog.suffix(3000)))
        }

        // They run as the extensions' user, not the child and not root.
        let extensionUID = try uid(of: fixture.extensionUser)
        let running = RunningPrograms.processes(running: program)
        XCTAssertFalse(running.isEmpty)
        XCTAssertTrue(running.allSatisfy { $0.uid == extensionUID }, "\(running)")
        let target = try XCTUnwrap(running.first).pid

        // What the child tries against them, as themself.
        let kill = try desktop.runAsKid(["kill", "-9", "\(target)"])
        XCTAssertNotEqual(kill.status, 0, "the child killed an extension: \(kill.output)")
        let environ = try desktop.runAsKid(["cat", "/proc/\(target)/environ"])
        XCTAssertNotEqual(environ.status, 0, "the child read an extension's environment")
        let strace = try desktop.runAsKid(["strace", "-p", "\(target)", "-o", "/dev/null"])
        XCTAssertNotEqual(strace.status, 0, "the child traced an extension: \(strace.error)")
        let folder = fixture.extensionsData.appendingPathComponent("\(desktop.uid)/\(homework)").path
        XCTAssertNotEqual(try desktop.runAsKid(["ls", folder]).status, 0, "the child read the extension's folder")
        XCTAssertNotEqual(
            try fixture.users.run(as: fixture.extensionUser, ["ls", fixture.state.path]).status, 0,
            "an extension read the daemon's state")
        XCTAssertNotEqual(
            try fixture.users.run(as: fixture.extensionUser, ["touch", "/home/\(desktop.kid)/planted"]).status, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: "/proc/\(target)"), "the extension still runs")

        // "Ask for access": the daemon starts the action delegate for the press; it defers,
        // and the shield is redrawn as waiting.
        let click = try desktop.runAsKid([
            "xdotool", "mousemove", "\(game.x + 20)", "\(game.y + 20)", "click", "1", "sleep", "0.3", "key", "Tab",
            "key", "Return",
        ])
        XCTAssertEqual(click.status, 0, click.error)
        try desktop.waitFor("the shield redrawn amber, as waiting") { isNear(250, 168, 38) }
        desktop.screenshot("managed-homework-asked.png")
        XCTAssertTrue(
            daemonLog.contains("started \(homework)'s shield-action extension"), String(daemonLog.suffix(3000)))

        // Three seconds in Notes: eventDidReachThreshold, and the monitor lifts the shield.
        XCTAssertEqual(try desktop.runAsKid(["xdotool", "windowactivate", desktop.windows[1]]).status, 0)
        try desktop.waitFor("the shield lifted once Notes reached the threshold", timeout: 30) {
            desktop.currentAgentCovers(0)
        }
        try desktop.waitFor("the monitor's word for it in the daemon's log") {
            daemonLog.contains("Homework: encouraged reached its threshold in daily, shield lifted")
        }

        // Idle, they leave; each run is recorded in the child's state.
        try desktop.waitFor("Homework's extensions to leave when idle", timeout: 30) {
            RunningPrograms.processes(running: program).isEmpty
        }
        let recorded = try runs()
        XCTAssertTrue(
            recorded.contains { Self.point($0) == "device-activity-monitor" && Self.outcome($0) == "exited" },
            "\(recorded)")
        // The child sees their own, from the daemon.
        let own = try desktop.runAsKid([fixture.program("screenward"), "extensions"])
        XCTAssertEqual(own.status, 0, own.error)
        XCTAssertTrue(
            own.output.contains("Homework (\(homework))") && own.output.contains("device-activity-monitor"), own.output)
    }

    /// An app's report extension drawing a managed user's report: the daemon gathers the
    /// child's data with the app's tokens and runs the extension as the extensions' user,
    /// in a network namespace of its own. The child gets their own report and a guardian
    /// the child's; another user, and an app the guardian never approved, get nothing.
    func testAReportExtensionDrawsTheChildsReportAsTheExtensionsUserWithNoNetwork() throws {
        // A port on this machine's loopback that answers from outside.
        let listener = try LoopbackListener()
        defer { listener.stop() }
        let probe = listener.probe
        let outside = try fixture.users.run(as: fixture.extensionUser, ["/bin/bash", "-c", probe])
        XCTAssertEqual(outside.output, "reached\n", "outside a report extension, the extensions' user reaches the port")

        // The extension tries to keep what it was given where the app's monitor (which has the
        // network) could read it, in its own folder and the shared temporary ones, and says where
        // it ran and what it was given.
        let extensionProgram = fixture.programs.appendingPathComponent("report-extension")
        let leaks = ["/tmp", "/var/tmp", "/dev/shm"].map { "\($0)/screenward-report-leak-\(UUID().uuidString)" }
        defer { for leak in leaks { try? FileManager.default.removeItem(atPath: leak) } }
        try Data(
            """
            #!/bin/bash
            cat > "$HOME/request.json"
            for leak in \(leaks.joined(separator: " ")); do cp "$HOME/request.json" "$leak"; done
            echo "report extension: uid $(id -u); network: $(\(probe)); interfaces: \
            $(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | tr '\\n' ' '); \
            given: $(grep -o '"role":"child"' "$HOME/request.json" | head -1); \
            kept: $(ls \(leaks.joined(separator: " ")) | wc -l)" >&2
            echo '{"view":{"text":{"_0":"Homework time"}}}'
            """.utf8
        ).write(to: extensionProgram)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: extensionProgram.path)
        try installHomework(report: [extensionProgram.path])
        try fixture.installApp(
            "org.example.unapproved", name: "Unapproved", executables: ["/bin/true"],
            extensions: ["device-activity-report": [extensionProgram.path]])
        try desktop.startManagedSession()
        let guardianName = try setUpHomework()

        // Homework shows its report: the session's agent opens the window, as its own user, and
        // the window asks the daemon for the drawing with its ticket. Homework hears only that
        // it was closed.
        let shown = try desktop.startAsKid([fixture.program("homework"), "report"])
        var window: String?
        try desktop.waitFor("the report window") {
            window = try desktop.runAsKid(["xdotool", "search", "--classname", "^screenward-report$"]).output.split(
                separator: "\n"
            ).first.map(String.init)
            return window != nil
        }
        let windows = try fixture.users.run(as: "root", ["pgrep", "-u", fixture.agentUser, "-f", "screenward-report"])
        XCTAssertEqual(windows.status, 0, "the window must be the agents' user's: \(windows.output)")
        let drew = "reports: \(homework)'s report extension drew \"homework\""
        try desktop.waitFor("the drawing in the daemon's log") { daemonLog.contains(drew) }
        desktop.screenshot("homework-child-report.png")
        // Closed through the window manager, as its close button does: a key sent to the
        // window can land on the shields kept above it.
        let close = try desktop.runAsKid(["wmctrl", "-i", "-c", try XCTUnwrap(window)])
        XCTAssertEqual(close.status, 0, close.error)
        XCTAssertEqual(shown.waitForExit(timeout: 20), 0, shown.standardError)
        XCTAssertTrue(shown.outputLines.isEmpty, "Homework was told nothing: \(shown.outputLines)")

        // No program of the child's gets an app's drawn report: not Screenward's command line
        // (which an app could run), nor the app itself.
        let png = "/tmp/screenward-kid-app-report-\(UUID().uuidString).png"
        defer { try? FileManager.default.removeItem(atPath: png) }
        let own = try desktop.runAsKid(
            [fixture.program("screenward"), "report", "--app", homework, "--context", "homework", "--png", png])
        XCTAssertNotEqual(own.status, 0)
        XCTAssertTrue(own.error.contains("Screenward's own window"), own.error)
        XCTAssertFalse(FileManager.default.fileExists(atPath: png), "the child's program got the drawing")
        let extensionUID = try uid(of: fixture.extensionUser)
        // The daemon logs both before it answers, but the test reads its log on a thread of its own.
        try desktop.waitFor("the extension's word and the drawing in the daemon's log") {
            daemonLog.contains("report extension: uid") && daemonLog.contains(drew)
        }
        XCTAssertTrue(
            daemonLog.contains("report extension: uid \(extensionUID); network: unreachable; interfaces: lo "),
            String(daemonLog.suffix(3000)))

        // It was given the child's activity, and could keep it only in its own HOME while it ran:
        // the shared temporary folders are read-only to it, and nothing is left once it ended.
        XCTAssertTrue(
            daemonLog.contains("given: \"role\":\"child\"; kept: 0"), String(daemonLog.suffix(3000)))
        let kept = fixture.extensionsData.appendingPathComponent("\(desktop.uid)/\(homework)/request.json")
        for left in [kept.path] + leaks {
            XCTAssertFalse(FileManager.default.fileExists(atPath: left), "\(left) outlived the report extension")
        }

        // A guardian's, for the child they name.
        let guardianPNG = "/tmp/screenward-guardian-app-report-\(UUID().uuidString).png"
        defer { try? FileManager.default.removeItem(atPath: guardianPNG) }
        let guardian = try fixture.screenward(
            as: guardianName,
            ["report", "--user", desktop.kid, "--app", homework, "--context", "homework", "--png", guardianPNG])
        XCTAssertEqual(guardian.status, 0, guardian.error)
        XCTAssertTrue(FileManager.default.fileExists(atPath: guardianPNG), "the guardian's report was drawn")

        // Nobody else's: not another user's for the child, not the child's for root.
        let nosyName = try fixture.users.add("nosy")
        let nosy = try fixture.screenward(
            as: nosyName,
            [
                "report", "--user", desktop.kid, "--app", homework, "--context", "homework", "--png",
                "/tmp/screenward-nosy-\(UUID().uuidString).png",
            ])
        XCTAssertNotEqual(nosy.status, 0)
        XCTAssertTrue(nosy.error.contains("only a guardian"), nosy.error)
        let childForRoot = try desktop.runAsKid([
            fixture.program("screenward"), "report", "--user", "root", "--app", homework, "--context", "homework",
            "--png", png + ".2",
        ])
        XCTAssertNotEqual(childForRoot.status, 0)
        XCTAssertTrue(childForRoot.error.contains("only a guardian"), childForRoot.error)

        // An installed app no guardian approved is given nothing, and its extension never starts,
        // even for a guardian.
        let drawnBefore = daemonLog.components(separatedBy: "report extension: uid").count
        let unapproved = try fixture.screenward(
            as: guardianName,
            [
                "report", "--user", desktop.kid, "--app", "org.example.unapproved", "--context", "homework", "--png",
                png + ".3",
            ])
        XCTAssertNotEqual(unapproved.status, 0)
        XCTAssertTrue(unapproved.error.contains("not authorised"), unapproved.error)
        XCTAssertEqual(
            daemonLog.components(separatedBy: "report extension: uid").count, drawnBefore,
            "the unapproved app's extension ran")
        XCTAssertFalse(FileManager.default.fileExists(atPath: png + ".3"))
    }

    /// A monitor that forks without end is held by the process limit of the extensions'
    /// user (not root's, which ignores it), killed with everything it started, and
    /// recorded; the daemon goes on.
    func testAMonitorThatForksWithoutEndIsHeldAndKilled() throws {
        let bomb = fixture.programs.appendingPathComponent("fork-bomb")
        // It starts the bomb, then becomes `sleep` (exec: no fork of its own). Were it to fork
        // once more, that fork could fail against the limit its own bomb fills, and it would
        // exit by itself (status 2, seen under load) rather than wait to be killed.
        try Data("#!/bin/sh\nb() { b | b & }\nb\nexec sleep 600\n".utf8).write(to: bomb)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: bomb.path)
        try installHomework(monitor: [bomb.path])
        try desktop.startManagedSession()
        try setUpHomework()

        let extensionUID = try uid(of: fixture.extensionUser)
        var most = 0
        // Killed, retried once, killed again: then the callback is recorded as failed.
        try desktop.waitFor("the bomb killed twice and the callback recorded as failed", timeout: 90) {
            most = max(most, ExtensionProcess.taskCount(of: extensionUID))
            return try runs().contains { Self.outcome($0) == "callback-failed" }
        }
        let launches = try runs().filter {
            Self.point($0) == "device-activity-monitor" && Self.outcome($0) != "callback-failed"
        }
        XCTAssertEqual(launches.count, 2, "\(launches)")
        // One is killed. The other is too, or it cannot even start while processes of the
        // extensions' user still fill the process limit (seen under load, when zombies are
        // reaped late, for the retry, and once in a full run for the first launch): its shell
        // exits at once and it is recorded as crashed. Neither runs the bomb further, and the
        // callback ends recorded as failed either way.
        XCTAssertTrue(launches.contains { Self.outcome($0) == "killed" }, "the launches: \(launches)")
        XCTAssertTrue(launches.allSatisfy { ["killed", "crashed"].contains(Self.outcome($0)) }, "\(launches)")
        XCTAssertLessThanOrEqual(most, ExtensionLimits().extraProcesses + 8, "the process limit held the bomb")
        try desktop.waitFor("nothing of the bomb left", timeout: 20) {
            ExtensionProcess.taskCount(of: extensionUID) == 0
        }
        XCTAssertTrue(fixture.daemon?.isRunning ?? false, "the daemon goes on")
        XCTAssertEqual(try fixture.screenward(as: "root", ["child", "list"]).status, 0)
    }
}
