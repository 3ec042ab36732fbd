import Foundation
import SystemAccounts
import XCTest

final class AccountLookupTests: XCTestCase {
    private let scratch = ScratchAccounts()

    override func tearDown() {
        scratch.removeAll()
        super.tearDown()
    }

    func testRootByNameAndByID() throws {
        let byName = try XCTUnwrap(UnixAccount.named("root"))
        XCTAssertEqual(byName.uid, .root)
        XCTAssertEqual(byName.gid, 0)
        XCTAssertEqual(byName.home, "/root")
        XCTAssertFalse(byName.shell.isEmpty)
        XCTAssertEqual(try UnixAccount.withID(.root), byName)
        XCTAssertEqual(try UnixGroup.named("root")?.gid, 0)
        XCTAssertEqual(try UnixGroup.withID(0)?.name, "root")
    }

    func testUnknownNamesAndIDsAreNil() throws {
        XCTAssertNil(try UnixAccount.named("swtest-nobody-\(UInt32.random(in: 0...UInt32.max))"))
        XCTAssertNil(try UnixAccount.named(""))
        // A NUL would cut the name to "root" in C: it must name nobody instead.
        XCTAssertNil(try UnixAccount.named("root\0x"))
        XCTAssertNil(try UnixAccount.withID(UserID(rawValue: 4_000_000_000)))
        XCTAssertNil(try UnixGroup.named("swtest-nogroup-\(UInt32.random(in: 0...UInt32.max))"))
        XCTAssertNil(try UnixGroup.withID(GroupID(rawValue: 4_000_000_000)))
    }

    func testACreatedUserByNameAndByID() throws {
        try ScratchAccounts.requireRoot()
        let name = try scratch.addUser("a", password: "unused-\(scratch.tag)")
        let account = try XCTUnwrap(UnixAccount.named(name))
        XCTAssertEqual(account.name, name)
        XCTAssertEqual(account.home, "/home/\(name)")
        XCTAssertEqual(account.shell, "/bin/sh")
        XCTAssertEqual(
            account.uid.rawValue,
            UInt32(
                try ScratchAccounts.run("/usr/bin/id", ["-u", name]).trimmingCharacters(in: .whitespacesAndNewlines)))
        XCTAssertEqual(try UnixAccount.withID(account.uid), account)
        // useradd --user-group: the primary group is named after the user.
        XCTAssertEqual(try UnixGroup.withID(account.gid)?.name, name)
    }

    func testGroupMembership() throws {
        try ScratchAccounts.requireRoot()
        let user = try scratch.addUser("a", password: "unused-\(scratch.tag)")
        let other = try scratch.addUser("b", password: "unused-\(scratch.tag)")
        let group = try scratch.addGroup()
        try scratch.add(user, toGroup: group)
        let account = try XCTUnwrap(UnixAccount.named(user))
        let otherAccount = try XCTUnwrap(UnixAccount.named(other))
        let created = try XCTUnwrap(UnixGroup.named(group))

        XCTAssertEqual(created.members, [user])
        XCTAssertTrue(try account.isMember(ofGroupNamed: group))
        XCTAssertTrue(try isMember(account, ofGroupNamed: user), "the primary group counts")
        XCTAssertFalse(try otherAccount.isMember(ofGroupNamed: group))
        XCTAssertFalse(try account.isMember(ofGroupNamed: "swtest-nogroup-\(scratch.tag)"))

        let groups = try supplementaryGroups(of: account)
        XCTAssertEqual(groups.first, AccountGroup(gid: account.gid, name: user), "primary group first")
        XCTAssertEqual(
            Set(groups), [AccountGroup(gid: account.gid, name: user), AccountGroup(gid: created.gid, name: group)])
        // The same list as the system's own tool.
        let idGroups = try ScratchAccounts.run("/usr/bin/id", ["-G", user]).split(separator: " ").compactMap {
            UInt32($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        XCTAssertEqual(Set(groups.map(\.gid.rawValue)), Set(idGroups))
    }

    /// Administrators cannot be managed: the daemon finds them by their sudo membership.
    func testSudoMembershipIsSeen() throws {
        try ScratchAccounts.requireRoot()
        let admin = try scratch.addUser("adm", password: "unused-\(scratch.tag)")
        let plain = try scratch.addUser("kid", password: "unused-\(scratch.tag)")
        try scratch.add(admin, toGroup: "sudo")
        XCTAssertTrue(try XCTUnwrap(UnixAccount.named(admin)).isMember(ofGroupNamed: "sudo"))
        XCTAssertFalse(try XCTUnwrap(UnixAccount.named(plain)).isMember(ofGroupNamed: "sudo"))
        XCTAssertTrue(try XCTUnwrap(UnixGroup.named("sudo")).members.contains(admin))
    }

    func testErrorsSayWhatFailed() {
        let error = AccountLookupError.systemError(function: "getpwnam_r", query: "the user \"x\"", errno: EIO)
        XCTAssertEqual(error.description, "getpwnam_r could not look up the user \"x\": Input/output error (errno 5)")
    }
}
