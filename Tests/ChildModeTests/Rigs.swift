import SessionHarness
import TestSupport
import XCTest

/// The tests' names for the harness's rigs, and their skips.
typealias DaemonFixture = DaemonRig
typealias ManagedDesktop = ManagedDesktopRig

extension DaemonRig {
    /// Ends the test unless it runs as root with the tools it needs.
    static func requireRoot() throws {
        if let missing = missingRequirement() { try cannotRun(missing) }
    }
}

extension ManagedDesktopRig {
    /// Ends the test unless it runs as root with what a desktop needs.
    static func requirements() throws {
        if let missing = missingRequirement() { try cannotRun(missing) }
    }
}

extension ManagedDesktopRig {
    /// The guardian's dialog's X window, as the child's X clients see it.
    func guardianDialog() throws -> String? {
        let found = try runAsKid(["xdotool", "search", "--name", "a guardian's approval"])
        return found.output.split(separator: "\n").first.map(String.init)
    }

    /// Starts `arguments` as the child and waits for the guardian's dialog it brings up;
    /// returns the waiting program and the dialog's window.
    func askingAGuardian(_ arguments: [String]) throws -> (ChildProcess, String) {
        let program = try startAsKid(arguments)
        var window: String?
        try waitFor("the guardian's dialog") {
            window = try guardianDialog()
            return window != nil
        }
        return (program, try XCTUnwrap(window))
    }

    /// Types `text` into the dialog's code field, as a person would, and presses Enter.
    func type(_ text: String, into window: String) throws {
        // The field is emptied first: what a garbled earlier try left must not prefix this one.
        for step in [
            ["windowactivate", "--sync", window], ["key", "ctrl+a", "BackSpace"], ["type", "--delay", "40", text],
            ["key", "Return"],
        ] {
            let result = try runAsKid(["xdotool"] + step)
            XCTAssertEqual(result.status, 0, "xdotool \(step): \(result.error)")
        }
    }
}

/// A guardian's authenticator app, for the tests: the secret comes from what
/// `screenward guardian enroll` printed, and the codes from `oathtool` (Debian's oathtool,
/// an implementation of RFC 6238 independent of ours).
struct TestAuthenticator {
    let guardian: String
    /// Base32, as the guardian would type it into their app.
    let secret: String
    let oathtool: URL

    /// Runs `screenward guardian enroll` as `guardian` and reads the secret it printed.
    static func enroll(_ guardian: String, with fixture: DaemonFixture) throws -> TestAuthenticator {
        let oathtool = try requireProgram("oathtool", package: "oathtool")
        let enrolled = try fixture.screenward(as: guardian, ["guardian", "enroll"])
        XCTAssertEqual(enrolled.status, 0, enrolled.error)
        let line = enrolled.output.split(separator: "\n").first { $0.contains("Secret: ") }
        let secret = try XCTUnwrap(
            line.map { String($0.split(separator: " ").last ?? "") },
            "no secret in: \(enrolled.output) \(enrolled.error)")
        return TestAuthenticator(guardian: guardian, secret: secret, oathtool: oathtool)
    }

    /// The code the app shows now (or at `date`).
    func code(at date: Date = Date()) throws -> String {
        let process = Process()
        process.executableURL = oathtool
        process.arguments = ["--totp", "--base32", "--now", "@\(Int(date.timeIntervalSince1970))", secret]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "oathtool failed")
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A code with at least `margin` seconds of its 30 s step left, waiting for the next
    /// step if need be: a test that types it twice must still be in its window.
    func freshCode(margin: TimeInterval = 15) throws -> String {
        let intoStep = Date().timeIntervalSince1970.truncatingRemainder(dividingBy: 30)
        if 30 - intoStep < margin { Thread.sleep(forTimeInterval: 30 - intoStep + 0.2) }
        return try code()
    }

    /// A code that is surely wrong now: neither this step's nor the previous one's.
    func wrongCode() throws -> String {
        let now = Date()
        let near = Set([
            try code(at: now), try code(at: now.addingTimeInterval(-30)), try code(at: now.addingTimeInterval(30)),
        ])
        var guess = 0
        while near.contains(String(format: "%06d", guess)) { guess += 1 }
        return String(format: "%06d", guess)
    }
}

extension ManagedDesktopRig {
    /// How many codes have reached the daemon (it logs each, never the code).
    func codesChecked() -> Int {
        (fixture.daemon?.standardError ?? "").components(separatedBy: "checking a code for").count - 1
    }

    /// Types `code` into the dialog and presses Enter until the daemon has it to check:
    /// on a loaded machine xdotool can lose a key, Return among them, and then nothing reaches
    /// the daemon. A try it never got is typed again; one it got is never sent twice (while it
    /// checks, the dialog's Approve is off and Enter asks nothing).
    func submit(_ code: String, into window: String) throws {
        for _ in 1...3 {
            let before = codesChecked()
            try type(code, into: window)
            if (try? waitFor("the daemon to check the code", timeout: 5, { codesChecked() > before })) != nil { return }
        }
        XCTFail(
            """
            three tries typed into the guardian's dialog never reached the daemon: \
            \((fixture.daemon?.standardError ?? "").suffix(1500))
            """
        )
    }

    /// Types the guardian's current code into the dialog until `approved` holds. On a
    /// loaded machine xdotool can lose a key on the way (the daemon then records a wrong
    /// code and the dialog stays up): the current code is typed again, within the three
    /// tries the daemon allows before it makes guardians wait. Returns the code that approved.
    @discardableResult
    func approve(with authenticator: TestAuthenticator, in dialog: String, until approved: () -> Bool) throws -> String
    {
        func wrongAnswers() -> Int {
            (fixture.daemon?.standardError ?? "").components(separatedBy: "a wrong code for").count
        }
        for _ in 1...3 {
            let wrongBefore = wrongAnswers()
            let code = try authenticator.freshCode()
            try submit(code, into: dialog)
            let deadline = Date().addingTimeInterval(15)
            while Date() < deadline {
                if approved() { return code }
                if wrongAnswers() > wrongBefore { break }
                Thread.sleep(forTimeInterval: 0.1)
            }
            if approved() { return code }
        }
        XCTFail(
            """
            the guardian's code did not approve in three tries; daemon: \
            \((fixture.daemon?.standardError ?? "").suffix(1500))
            """
        )
        return ""
    }
}

extension ManagedDesktopRig {
    /// The activity picker the session's agent shows for an app, as the child's X clients see it.
    func pickerWindow() throws -> String? {
        let found = try runAsKid(["xdotool", "search", "--classname", "^picker$"])
        return found.output.split(separator: "\n").first.map(String.init)
    }

    /// Picks with the keyboard in the picker the agent shows, as the child would: `search`
    /// typed, Tab into the list, Down to the first row under the first header (what `search`
    /// names must be the one match), space, Enter. With `wholeCategory`, the header itself is
    /// ticked: the first category `search` shows. Waits until the picker is gone.
    func pick(_ search: String, wholeCategory: Bool = false) throws {
        var window: String?
        try waitFor("the activity picker") {
            window = try pickerWindow()
            return window != nil
        }
        let picker = try XCTUnwrap(window)
        for step in [
            ["windowactivate", "--sync", picker], ["type", "--delay", "40", search], ["sleep", "0.6"],
            ["key", "Tab"] + (wholeCategory ? [] : ["Down"]) + ["space"], ["sleep", "0.3"], ["key", "Return"],
        ] {
            let result = try runAsKid(["xdotool"] + step)
            XCTAssertEqual(result.status, 0, "xdotool \(step): \(result.error)")
        }
        try waitFor("the activity picker to close") { try pickerWindow() == nil }
    }
}
