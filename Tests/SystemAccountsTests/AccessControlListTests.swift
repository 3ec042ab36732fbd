import Foundation
import SessionHarness
import SystemAccounts
import TestSupport
import XCTest

/// What the daemon does to a managed child's compositor socket, done to real files of a real
/// account and checked as real accounts: another user gains access to one file in the owner's
/// private folder, and nobody else does; a symbolic link the owner put there gets nothing.
final class AccessControlListTests: XCTestCase {
    private let accounts = ScratchAccounts()
    private var folder: URL?

    override func setUpWithError() throws {
        try ScratchAccounts.requireRoot()
    }

    override func tearDown() {
        if let folder { try? FileManager.default.removeItem(at: folder) }
        accounts.removeAll()
    }

    func testAGrantedUserReachesOneFileOfAPrivateFolderAndOthersDoNot() throws {
        let owner = try accounts.addUser("o", password: "o-pass-1")
        let agent = try accounts.addUser("a", password: "a-pass-1")
        let stranger = try accounts.addUser("s", password: "s-pass-1")
        let (ownerID, agentID) = (try uid(owner), try uid(agent))
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("acl-\(UUID().uuidString)")
        self.folder = folder
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        let file = folder.appendingPathComponent("socket-like")
        try Data("the owner's\n".utf8).write(to: file)
        for (path, mode) in [(folder.path, 0o700), (file.path, 0o600)] {
            try FileManager.default.setAttributes(
                [.ownerAccountID: ownerID, .posixPermissions: mode], ofItemAtPath: path)
        }
        XCTAssertFalse(canRead(file.path, as: agent), "the folder is private before the grant")

        try AccessControlList.grant(.execute, to: agentID, on: folder.path)
        try AccessControlList.grant([.read, .write], to: agentID, on: file.path)
        XCTAssertEqual(AccessControlList.permissions(of: agentID, on: file.path), [.read, .write])
        XCTAssertTrue(canRead(file.path, as: agent))
        XCTAssertTrue(canRead(file.path, as: owner))
        XCTAssertFalse(canRead(file.path, as: stranger))
        // Granting again keeps one entry, the owner's own rights, and the others' none.
        try AccessControlList.grant([.read, .write], to: agentID, on: file.path)
        let mode = try XCTUnwrap(
            try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? NSNumber)
        XCTAssertEqual(mode.intValue & 0o707, 0o600, String(mode.intValue, radix: 8))
        XCTAssertTrue(canRead(file.path, as: agent))
        XCTAssertFalse(canRead(file.path, as: stranger))

        // A link the owner put in the socket's place gets no access list, nor does its target.
        let secret = folder.appendingPathComponent("secret")
        try Data("root's\n".utf8).write(to: secret)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: secret.path)
        let link = folder.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: secret.path)
        XCTAssertThrowsError(try AccessControlList.grant(.read, to: agentID, on: link.path))
        XCTAssertNil(AccessControlList.permissions(of: agentID, on: secret.path))
        XCTAssertFalse(canRead(secret.path, as: agent))
    }

    private func uid(_ user: String) throws -> UInt32 {
        let printed = try ScratchAccounts.run("/usr/bin/id", ["-u", user])
        return try XCTUnwrap(UInt32(printed.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    private func canRead(_ path: String, as user: String) -> Bool {
        ((try? LocalUsers.capture("/usr/sbin/runuser", ["-u", user, "--", "/bin/cat", path]))?.status ?? 1) == 0
    }
}
