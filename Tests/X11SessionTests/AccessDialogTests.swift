import Foundation
import SessionHarness
import TestSupport
import XCTest

/// The dialog in which a person allows an app Screen Time access, answered as the person
/// would: a real account with a password, the agent and the app running as that person,
/// keys typed through XTEST into the focused window (as a keyboard does). Keys another client
/// sends to the dialog's window (`XSendEvent`) answer nothing: the agent runs with
/// `GDK_CORE_DEVICE_EVENTS=1`, with which GTK would take them, as a person may set it.
final class AccessDialogTests: XSessionTestCase {
    private var users: LocalUsers?
    /// The PAM service file this test put in place (removed after), if the machine had none.
    private var installedService: String?

    private static let service = "/etc/pam.d/screenward"
    private static let title = "Screenward: Screen Time access"
    private static let app = "org.example.worklog"

    override func setUpWithError() throws {
        try super.setUpWithError()
        guard geteuid() == 0 else { try cannotRun("the test makes a real account with a password: root only") }
        _ = try requireTool("xdotool")
        _ = try requireProgram("runuser", package: "util-linux")
        if !FileManager.default.fileExists(atPath: Self.service) {
            // The package installs it; from source, the repository's file is put in place.
            let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("desktop/pam/screenward")
            try FileManager.default.copyItem(atPath: source.path, toPath: Self.service)
            installedService = Self.service
        }
    }

    override func tearDownWithError() throws {
        if let users {
            for name in [users.prefix + "sam"] { _ = try? capture("/usr/bin/pkill", ["-KILL", "-u", name]) }
            Thread.sleep(forTimeInterval: 0.3)
            users.removeAll()
        }
        if let installedService { try? FileManager.default.removeItem(atPath: installedService) }
        try super.tearDownWithError()
    }

    // MARK: The tests

    func testAnAppGetsAccessOnlyWithThePersonsPasswordTypedForReal() throws {
        let session = try startXSession()
        let sam = try person(on: session, password: "correct-horse-7")
        let setup = try sam.start(["worklog", "setup"])
        let dialog = try waitForDialog(on: session)

        // Keys sent to the window by another client type nothing and press nothing: a real
        // Enter afterwards checks an empty password, which is wrong.
        try xdotool(session, ["type", "--window", dialog, "correct-horse-7"])
        try xdotool(session, ["key", "--window", dialog, "Return"])
        Thread.sleep(forTimeInterval: 2.5)
        XCTAssertTrue(setup.isRunning, "the app was answered: \(setup.standardError)")
        XCTAssertFalse(sam.log.contains("wrong password"), "a sent Enter reached the password check")
        for step in [["windowactivate", "--sync", dialog], ["sleep", "1.3"], ["key", "Return"]] {
            try xdotool(session, step)
        }
        try waitFor("the empty password to be checked") { wrongPasswords(sam) == 1 }
        XCTAssertFalse(sam.log.contains("allowed (the person"), "the keys another client sent were typed: \(sam.log)")
        XCTAssertTrue(setup.isRunning)

        // Enter pressed the moment the dialog gets the focus does nothing: it is not armed yet.
        let other = try ChildProcess(
            try ProjectPrograms.url(of: "screenward-testwindow"), ["--window", "other.Other:Other"],
            environment: ["DISPLAY": session.display])
        defer { other.stop() }
        let otherWindow = try other.waitForOutputLines(1, timeout: 20)[0]
        try xdotool(session, ["windowactivate", "--sync", otherWindow])
        try xdotool(session, ["windowactivate", "--sync", dialog, "key", "Return"])
        Thread.sleep(forTimeInterval: 2)
        XCTAssertEqual(wrongPasswords(sam), 1, "Enter worked before the dialog was armed: \(sam.log)")
        XCTAssertTrue(setup.isRunning)

        // The wrong password kept the dialog up; the right one allows (typed again should
        // the machine lose a key: the dialog takes three tries).
        var status: Int32?
        for _ in 1...2 where status == nil {
            try type("correct-horse-7", into: dialog, on: session)
            status = setup.waitForExit(timeout: 10)
        }
        XCTAssertEqual(status, 0, "worklog setup: \(setup.standardError)\nagent: \(sam.log)")
        XCTAssertTrue(setup.outputLines.joined().contains("authorised"), "\(setup.outputLines)")
        XCTAssertTrue(
            sam.log.contains("\(Self.app): allowed (the person allowed it with their password)"), sam.log)
        XCTAssertTrue(sam.log.contains("\(Self.app) (\(sam.bin)/worklog) asks for Screen Time access"), sam.log)

        // Allowed once, asked never again; the person's own command is never asked about.
        let again = try sam.run(["worklog", "setup"])
        XCTAssertEqual(again.status, 0, again.error)
        XCTAssertEqual(sam.log.components(separatedBy: "asks for Screen Time access").count, 2, sam.log)
        let shielded = try sam.run(["screenward", "shield", "add", "--app", "wmclass:Other"])
        XCTAssertEqual(shielded.status, 0, shielded.error)
        XCTAssertTrue(sam.log.contains("the person's own screenward command holds Screen Time access"), sam.log)
        XCTAssertEqual(sam.log.components(separatedBy: "asks for Screen Time access").count, 2, sam.log)
        let listed = try sam.run(["screenward", "app", "list"])
        XCTAssertTrue(listed.output.contains(Self.app), listed.output + listed.error)
    }

    func testDontAllowRefusesTheAppAndAnAppThatQuitsTakesItsQuestionAway() throws {
        let session = try startXSession()
        let sam = try person(on: session, password: "correct-horse-7")

        let refused = try sam.start(["worklog", "setup"])
        let dialog = try waitForDialog(on: session)
        try xdotool(session, ["windowactivate", "--sync", dialog, "sleep", "1.3", "key", "Escape"])
        XCTAssertNotEqual(refused.waitForExit(timeout: 15) ?? 0, 0, "refused: \(refused.standardError)")
        XCTAssertTrue(sam.log.contains("\(Self.app): not allowed (the person did not allow it)"), sam.log)
        try waitFor("the dialog to close") { try findDialog(on: session) == nil }

        let quitting = try sam.start(["worklog", "setup"])
        _ = try waitForDialog(on: session)
        _ = try capture("/usr/bin/pkill", ["-KILL", "-u", sam.name, "-x", "worklog"])
        _ = quitting.waitForExit(timeout: 10)
        try waitFor("the dialog of an app that quit to close") { try findDialog(on: session) == nil }
        XCTAssertTrue(sam.log.contains("\(Self.app) stopped waiting; its question is withdrawn"), sam.log)
        let listed = try sam.run(["screenward", "app", "list"])
        XCTAssertFalse(listed.output.contains(Self.app), listed.output)
    }

    private func wrongPasswords(_ person: Person) -> Int {
        person.log.components(separatedBy: "a wrong password for \(Self.app)").count - 1
    }

    // MARK: The person

    /// A real account with `password`, its own copies of the programs, and its agent on
    /// `session`'s display.
    private func person(on session: PrivateXSession, password: String) throws -> Person {
        let users = LocalUsers()
        self.users = users
        let name = try users.add("sam", password: password)
        let work = temporary.appendingPathComponent("installed")
        try ProgramCopies.install(["screenward-agent", "screenward", "worklog"], in: work)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: temporary.path)
        let sam = Person(name: name, bin: work.appendingPathComponent("bin").path, display: session.display)
        try sam.startAgent()
        return sam
    }

    private final class Person {
        let name: String
        let bin: String
        let display: String
        private var agent: ChildProcess?

        init(name: String, bin: String, display: String) {
            self.name = name
            self.bin = bin
            self.display = display
        }

        deinit { agent?.stop() }

        var log: String { agent?.standardError ?? "" }

        /// The environment a session would give: no system daemon (this is their own account).
        private func command(_ arguments: [String], extra: [String] = []) -> [String] {
            [
                "-u", name, "--", "/usr/bin/env", "-i", "HOME=/home/\(name)", "PATH=\(bin):/usr/bin:/bin",
                "DISPLAY=\(display)", "LANG=C.UTF-8", "SCREENWARD_DAEMON_SOCKET=/nonexistent/daemon.sock",
            ]
                + extra + ["\(bin)/\(arguments[0])"] + arguments.dropFirst()
        }

        func startAgent() throws {
            agent = try ChildProcess(
                URL(fileURLWithPath: "/usr/sbin/runuser"),
                command(["screenward-agent", "--verbose"], extra: ["GDK_CORE_DEVICE_EVENTS=1"]))
            try agent?.waitForStandardError(containing: "tracking", timeout: 20)
        }

        func start(_ arguments: [String]) throws -> ChildProcess {
            try ChildProcess(URL(fileURLWithPath: "/usr/sbin/runuser"), command(arguments))
        }

        func run(_ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
            let process = try start(arguments)
            guard let status = process.waitForExit(timeout: 30) else {
                throw HarnessError.timedOut("\(arguments) as \(name)")
            }
            return (status, process.outputLines.joined(separator: "\n"), process.standardError)
        }
    }

    // MARK: The dialog, as the display shows it

    private func findDialog(on session: PrivateXSession) throws -> String? {
        let found = try capture(
            try requireTool("xdotool").path, ["search", "--name", Self.title], display: session.display)
        return found.split(separator: "\n").first.map(String.init)
    }

    private func waitForDialog(on session: PrivateXSession) throws -> String {
        var window: String?
        try waitFor("the access dialog") {
            window = try findDialog(on: session)
            return window != nil
        }
        return try XCTUnwrap(window)
    }

    /// Types `text` into the dialog as a keyboard would, once it is armed, and presses Enter.
    private func type(_ text: String, into dialog: String, on session: PrivateXSession) throws {
        for step in [
            ["windowactivate", "--sync", dialog], ["sleep", "1.3"], ["key", "ctrl+a", "BackSpace"],
            ["type", "--delay", "40", text], ["key", "Return"],
        ] {
            try xdotool(session, step)
        }
    }

    private func xdotool(_ session: PrivateXSession, _ arguments: [String]) throws {
        _ = try capture(try requireTool("xdotool").path, arguments, display: session.display)
    }

    @discardableResult
    private func capture(_ program: String, _ arguments: [String], display: String? = nil) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        if let display {
            process.environment = ProcessInfo.processInfo.environment.merging(["DISPLAY": display]) { $1 }
        }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text
    }

    private func waitFor(_ what: String, timeout: TimeInterval = 20, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while try !condition() {
            guard Date() < deadline else { throw HarnessError.timedOut(what) }
            Thread.sleep(forTimeInterval: 0.1)
        }
    }
}
