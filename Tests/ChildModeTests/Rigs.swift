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

    /// Types `password` into the dialog, as a person would, and presses Enter.
    func type(_ password: String, into window: String) throws {
        // The field is emptied first: what a garbled earlier try left must not prefix this one.
        for step in [["windowactivate", "--sync", window], ["key", "ctrl+a", "BackSpace"], ["type", "--delay", "40", password], ["key", "Return"]] {
            let result = try runAsKid(["xdotool"] + step)
            XCTAssertEqual(result.status, 0, "xdotool \(step): \(result.error)")
        }
    }
}

extension ManagedDesktopRig {
    /// Types `password` into the dialog and presses Enter until the daemon has it to check:
    /// on a loaded machine xdotool can lose a key, Return among them, and then nothing reaches
    /// the daemon. A try it never got is typed again; one it got is never sent twice (while it
    /// checks, the dialog's Approve is off and Enter asks nothing).
    func submit(_ password: String, into window: String) throws {
        func checks() -> Int { (fixture.daemon?.standardError ?? "").components(separatedBy: "checking a password for").count }
        for _ in 1...3 {
            let before = checks()
            try type(password, into: window)
            if (try? waitFor("the daemon to check the password", timeout: 5, { checks() > before })) != nil { return }
        }
        XCTFail("three tries typed into the guardian's dialog never reached the daemon: \((fixture.daemon?.standardError ?? "").suffix(1500))")
    }

    /// Types a guardian's right password into the dialog until `approved` holds. On a
    /// loaded machine xdotool can lose a key on the way (the daemon then records a wrong
    /// password and the dialog stays up): that is typed again, within the three tries the
    /// daemon allows before it makes guardians wait. Never use it for a wrong password.
    func approve(with password: String, in dialog: String, until approved: () -> Bool) throws {
        func wrongAnswers() -> Int { (fixture.daemon?.standardError ?? "").components(separatedBy: "a wrong password for").count }
        for _ in 1...3 {
            let wrongBefore = wrongAnswers()
            try submit(password, into: dialog)
            let deadline = Date().addingTimeInterval(15)
            while Date() < deadline {
                if approved() { return }
                if wrongAnswers() > wrongBefore { break }
                Thread.sleep(forTimeInterval: 0.1)
            }
            if approved() { return }
        }
        XCTFail("the guardian's password did not approve in three tries; daemon: \((fixture.daemon?.standardError ?? "").suffix(1500))")
    }
}
