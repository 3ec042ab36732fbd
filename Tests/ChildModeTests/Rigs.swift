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
