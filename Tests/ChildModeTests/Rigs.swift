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
        for step in [["windowactivate", "--sync", window], ["type", "--delay", "20", password], ["key", "Return"]] {
            let result = try runAsKid(["xdotool"] + step)
            XCTAssertEqual(result.status, 0, "xdotool \(step): \(result.error)")
        }
    }
}
