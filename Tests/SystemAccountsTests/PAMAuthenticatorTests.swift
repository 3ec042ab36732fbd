import Foundation
import SystemAccounts
import XCTest

/// Real PAM through a copy of desktop/pam/screenward and real users. A wrong password
/// takes pam_unix's failure delay (about 2 s) to come back.
final class PAMAuthenticatorTests: XCTestCase {
    private let scratch = ScratchAccounts()
    private let pam = PAMAuthenticator()

    override func tearDown() {
        scratch.removeAll()
        super.tearDown()
    }

    func testRightWrongAndUnknown() throws {
        try ScratchAccounts.requireRoot()
        let service = try scratch.installPAMService()
        let password = "Correct horse \(scratch.tag) ünïcode"
        let user = try scratch.addUser("a", password: password)
        let other = try scratch.addUser("b", password: "other-\(scratch.tag)")

        XCTAssertEqual(try pam.verify(user: user, password: password, service: service), .accepted)
        XCTAssertEqual(try pam.verify(user: user, password: password + "x", service: service), .rejected)
        XCTAssertEqual(
            try pam.verify(user: user, password: "other-\(scratch.tag)", service: service), .rejected,
            "another user's password")
        XCTAssertEqual(try pam.verify(user: other, password: "other-\(scratch.tag)", service: service), .accepted)
        // An unknown user is the same outcome as a wrong password.
        XCTAssertEqual(
            try pam.verify(user: "swtest-nobody-\(scratch.tag)", password: password, service: service), .rejected)
    }

    func testInputPAMCannotTakeIsRejected() throws {
        try ScratchAccounts.requireRoot()
        let service = try scratch.installPAMService()
        let user = try scratch.addUser("a", password: "pw-\(scratch.tag)")
        XCTAssertEqual(try pam.verify(user: user, password: "", service: service), .rejected)
        XCTAssertEqual(try pam.verify(user: user, password: "pw-\(scratch.tag)\0tail", service: service), .rejected)
        XCTAssertEqual(try pam.verify(user: "", password: "pw-\(scratch.tag)", service: service), .rejected)
        XCTAssertEqual(try pam.verify(user: user + "\0", password: "pw-\(scratch.tag)", service: service), .rejected)
    }

    /// A locked password (usermod -L prefixes the hash with "!") fails like a wrong one.
    func testLockedAccountIsRejected() throws {
        try ScratchAccounts.requireRoot()
        let service = try scratch.installPAMService()
        let user = try scratch.addUser("a", password: "pw-\(scratch.tag)")
        XCTAssertEqual(try pam.verify(user: user, password: "pw-\(scratch.tag)", service: service), .accepted)
        try ScratchAccounts.run("/usr/sbin/usermod", ["-L", user])
        XCTAssertEqual(try pam.verify(user: user, password: "pw-\(scratch.tag)", service: service), .rejected)
    }

    /// An expired account has the right password but may not be used: pam_acct_mgmt says so.
    func testExpiredAccountIsUnusable() throws {
        try ScratchAccounts.requireRoot()
        let service = try scratch.installPAMService()
        let user = try scratch.addUser("a", password: "pw-\(scratch.tag)")
        try ScratchAccounts.run("/usr/sbin/usermod", ["-e", "1970-01-02", user])
        let verdict = try pam.verify(user: user, password: "pw-\(scratch.tag)", service: service)
        guard case .accountUnusable(let reason) = verdict else { return XCTFail("expired account: \(verdict)") }
        XCTAssertTrue(reason.localizedCaseInsensitiveContains("expired"), reason)
        // Without the password, nothing about the account is told.
        XCTAssertEqual(try pam.verify(user: user, password: "wrong", service: service), .rejected)
    }

    func testPasswordThatMustBeChangedIsUnusable() throws {
        try ScratchAccounts.requireRoot()
        let service = try scratch.installPAMService()
        let user = try scratch.addUser("a", password: "pw-\(scratch.tag)")
        try ScratchAccounts.run("/usr/bin/chage", ["-d", "0", user])
        let verdict = try pam.verify(user: user, password: "pw-\(scratch.tag)", service: service)
        guard case .accountUnusable = verdict else { return XCTFail("password to change: \(verdict)") }
    }

    func testMissingServiceFileIsASystemFailure() throws {
        try ScratchAccounts.requireRoot()
        let user = try scratch.addUser("a", password: "pw-\(scratch.tag)")
        let service = "screenward-test-missing-\(scratch.tag)"
        XCTAssertThrowsError(try pam.verify(user: user, password: "pw-\(scratch.tag)", service: service)) { error in
            XCTAssertEqual(error as? PAMError, .serviceFileMissing(path: "/etc/pam.d/\(service)"))
            XCTAssertTrue("\(error)".contains("/etc/pam.d/\(service) is missing"), "\(error)")
        }
        XCTAssertThrowsError(try pam.verify(user: user, password: "x", service: "../passwd")) { error in
            XCTAssertEqual(error as? PAMError, .invalidServiceName("../passwd"))
        }
    }

    /// Texts from the modules are taken in and do not spoil the check (pam_echo in the
    /// account stage, which is not silent; the authentication stage is).
    func testInformationalMessagesAreTolerated() throws {
        try ScratchAccounts.requireRoot()
        let user = try scratch.addUser("a", password: "pw-\(scratch.tag)")
        let service = "screenward-test-echo-\(scratch.tag)"
        try scratch.installPAMService(
            named: service,
            contents: "auth required pam_unix.so\naccount optional pam_echo.so hello %u\naccount required pam_unix.so\n"
        )
        XCTAssertEqual(try pam.verify(user: user, password: "pw-\(scratch.tag)", service: service), .accepted)
    }
}
