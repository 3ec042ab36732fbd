import Foundation
import GLibRuntime
import SessionHarness
import TestSupport
import XCTest

/// `AccountsServiceUsers` against Debian's real AccountsService: its accounts-daemon and
/// polkitd on a private stand-in system bus, a real user made with `useradd`. What it sets
/// is what LightDM's and GDM's greeters preselect, and what AccountsService writes down.
final class AccountsServiceUsersTests: XCTestCase {
    private var environment: SavedEnvironment!
    private var processes: [ChildProcess] = []
    private var bus: PrivateDBus?
    private var users: LocalUsers?
    /// AccountsService's record of the test's user, removed with it.
    private var record: String?

    override func setUpWithError() throws {
        guard geteuid() == 0 else { try cannotRun("AccountsService's users are root's to change") }
        for program in ["/usr/libexec/accounts-daemon", "/usr/lib/polkit-1/polkitd"]
        where !FileManager.default.isExecutableFile(atPath: program) {
            try cannotRun("\(program) is missing (Debian: apt-get install accountsservice)")
        }
        environment = SavedEnvironment(["DBUS_SYSTEM_BUS_ADDRESS"])
    }

    override func tearDown() {
        for process in processes { process.stop(grace: 2) }
        bus?.stop()
        users?.removeAll()
        if let record { try? FileManager.default.removeItem(atPath: record) }
        environment?.restore()
    }

    func testAUsersDefaultSessionIsSetToAnX11One() throws {
        // Without AccountsService on the bus: a clear error, nothing else.
        let bus = try PrivateDBus()
        self.bus = bus
        setenv("DBUS_SYSTEM_BUS_ADDRESS", bus.address, 1)
        XCTAssertThrowsError(try AccountsServiceUsers.setX11Session("openbox", of: "nobody")) { error in
            guard case .notRunning = error as? AccountsServiceUsers.Failure else { return XCTFail("\(error)") }
        }

        let environment = ["DBUS_SYSTEM_BUS_ADDRESS": bus.address]
        processes.append(
            try ChildProcess(
                URL(fileURLWithPath: "/usr/lib/polkit-1/polkitd"), ["--no-debug"], environment: environment))
        processes.append(
            try ChildProcess(URL(fileURLWithPath: "/usr/libexec/accounts-daemon"), [], environment: environment))
        let users = LocalUsers()
        self.users = users
        let kid = try users.add("kid")
        record = "/var/lib/AccountsService/users/\(kid)"
        users.note("file /var/lib/AccountsService/users/\(kid)")
        var lastError: (any Error)?
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            do {
                try AccountsServiceUsers.setX11Session("openbox", of: kid)
                lastError = nil
                break
            } catch {
                // accounts-daemon takes a moment to own its name.
                lastError = error
                Thread.sleep(forTimeInterval: 0.2)
            }
        }
        XCTAssertNil(lastError)
        let kept = try String(contentsOfFile: try XCTUnwrap(record), encoding: .utf8)
        XCTAssertTrue(kept.contains("XSession=openbox"), kept)
        XCTAssertTrue(kept.contains("Session=openbox"), kept)
        XCTAssertTrue(kept.contains("SessionType=x11"), kept)

        XCTAssertThrowsError(try AccountsServiceUsers.setX11Session("openbox", of: "\(kid)-nobody")) { error in
            guard case .failed(let method, _) = error as? AccountsServiceUsers.Failure else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(method, "FindUserByName")
        }
    }
}
