import Foundation
import SessionHarness
import TestSupport
import XCTest

/// Tests against a real X server: each test gets its own Xvfb (and openbox).
/// Outside CI they skip when Xvfb or openbox is missing; in CI they must run.
class XSessionTestCase: XCTestCase {
    var temporary: URL!

    override func setUpWithError() throws {
        temporary = FileManager.default.temporaryDirectory.appendingPathComponent(
            "screenward-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: temporary)
    }

    func startXSession(windowManager: Bool = true) throws -> PrivateXSession {
        _ = try requireProgram("Xvfb", package: "xvfb")
        if windowManager { _ = try requireProgram("openbox", package: "openbox") }
        return try PrivateXSession(windowManager: windowManager)
    }

    /// An isolated application catalog: only the desktop entries the test writes, over the
    /// machine's shared data without its own entries or installed apps (`MachineSharedData`).
    func catalogEnvironment(entries: [String: String]) throws -> [String: String] {
        let dataHome = temporary.appendingPathComponent("data")
        let applications = dataHome.appendingPathComponent("applications")
        try FileManager.default.createDirectory(at: applications, withIntermediateDirectories: true)
        for (name, contents) in entries {
            try contents.write(to: applications.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        return [
            "XDG_DATA_HOME": dataHome.path, "XDG_DATA_DIRS": try sharedData(),
            "SCREENWARD_DAEMON_SOCKET": AgentRun.noSystemDaemon(beside: home),
        ]
    }

    /// `XDG_DATA_DIRS` for this test: `MachineSharedData`, made once per test.
    func sharedData() throws -> String {
        try MachineSharedData.withoutApplications(in: temporary.appendingPathComponent("machine-shared"))
    }

    var home: URL { temporary.appendingPathComponent("home") }
}

/// An X tool the tests drive (found on PATH), and the Debian package that has it;
/// missing, the test skips outside CI and fails in CI.
func requireTool(_ name: String) throws -> URL {
    let packages = [
        "xdotool": "xdotool", "wmctrl": "wmctrl", "xwininfo": "x11-utils", "xprop": "x11-utils",
        "dbus-send": "dbus-bin",
    ]
    return try requireProgram(name, package: packages[name] ?? name)
}

extension XSessionTestCase {
    /// Runs one of the project's programs to its end; returns its output, or throws with
    /// its standard error when it fails.
    func runProject(_ program: String, _ arguments: [String], _ environment: [String: String]) throws -> String {
        let run = try ChildProcess(try ProjectPrograms.url(of: program), arguments, environment: environment)
        run.closeInput()
        guard let status = run.waitForExit(timeout: 30) else { throw HarnessError.timedOut("\(program) \(arguments)") }
        Thread.sleep(forTimeInterval: 0.05)
        guard status == 0 else {
            throw HarnessError.failed("\(program) \(arguments) exited \(status): \(run.standardError)")
        }
        return run.outputLines.joined(separator: "\n")
    }

    /// `date` as HH:MM in this machine's zone (the examples' --from and --until).
    static func hourAndMinute(_ date: Date) -> String {
        let parts = Calendar.current.dateComponents([.hour, .minute], from: date)
        return String(format: "%02d:%02d", parts.hour!, parts.minute!)
    }
}
