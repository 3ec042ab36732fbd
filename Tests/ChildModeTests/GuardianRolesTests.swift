import Foundation
import Glibc
import ScreenwardCore
import SessionHarness
import TestSupport
import XCTest

/// The system daemon's roles, tried by real local users (created with useradd, acting
/// through `runuser`) against a real daemon running as root: a guardian manages children
/// without a password, a child or anyone else cannot, administrators and guardians cannot
/// be managed, and a child cannot read or change the daemon's state.
final class GuardianRolesTests: XCTestCase {
    private var fixture: DaemonFixture!
    private var users: LocalUsers { fixture.users }
    private var socket: String { fixture.socket }
    private var state: URL { fixture.state }

    override func setUpWithError() throws {
        try DaemonFixture.requireRoot()
        fixture = try DaemonFixture()
        try fixture.startDaemon()
    }

    override func tearDown() {
        fixture?.tearDown()
    }

    private func screenward(as user: String, _ arguments: [String]) throws -> (
        status: Int32, output: String, error: String
    ) {
        try fixture.screenward(as: user, arguments)
    }

    func testAGuardianManagesAChildAndNobodyElseCan() throws {
        let guardian = try users.add("guard", groups: [fixture.guardianGroup])
        let child = try users.add("kid")
        let other = try users.add("other")

        let added = try screenward(as: guardian, ["child", "add", child])
        XCTAssertEqual(added.status, 0, added.error)
        XCTAssertTrue(added.output.contains("\(child) (uid"), added.output)

        let listed = try screenward(as: guardian, ["child", "list", "--json"])
        XCTAssertEqual(listed.status, 0, listed.error)
        let entries = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]])
        XCTAssertEqual(entries.map { $0["user"] as? String }, [child])
        XCTAssertEqual(entries.first?["added_by"] as? String, guardian)

        // The child cannot undo it, nor manage anyone; the attempts are recorded.
        let childRemoves = try screenward(as: child, ["child", "remove", child])
        XCTAssertNotEqual(childRemoves.status, 0)
        XCTAssertTrue(childRemoves.error.contains("only a guardian"), childRemoves.error)
        let childAdds = try screenward(as: child, ["child", "add", other])
        XCTAssertNotEqual(childAdds.status, 0)
        // Someone unmanaged cannot either (nothing to record: they are nobody's child).
        let otherLists = try screenward(as: other, ["child", "list"])
        XCTAssertNotEqual(otherLists.status, 0)
        XCTAssertTrue(otherLists.error.contains(fixture.guardianGroup), otherLists.error)

        let stillListed = try screenward(as: "root", ["child", "list", "--json"])
        XCTAssertEqual(stillListed.status, 0, stillListed.error)
        XCTAssertTrue(
            stillListed.output.contains("\"\(child)\""),
            "root is a guardian and still sees the child: \(stillListed.output)")

        let events = try screenward(as: guardian, ["child", "events", child, "--json"])
        XCTAssertEqual(events.status, 0, events.error)
        let kinds = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(events.output.utf8)) as? [[String: Any]]).map
        { $0["kind"] as? String }
        XCTAssertEqual(kinds, ["managed", "refused", "refused"])
        XCTAssertTrue(events.output.contains("child remove \(child)"), events.output)

        let removed = try screenward(as: guardian, ["child", "remove", child])
        XCTAssertEqual(removed.status, 0, removed.error)
        let empty = try screenward(as: guardian, ["child", "list", "--json"])
        XCTAssertEqual(
            (try JSONSerialization.jsonObject(with: Data(empty.output.utf8)) as? [Any])?.count, 0, empty.output)
        // The record outlives the management.
        let kept = try screenward(as: guardian, ["child", "events", child])
        XCTAssertTrue(kept.output.contains("stopped managing"), kept.output)
    }

    func testAdministratorsGuardiansRootAndUnknownUsersCannotBeManaged() throws {
        let guardian = try users.add("guard", groups: [fixture.guardianGroup])
        let otherGuardian = try users.add("guard2", groups: [fixture.guardianGroup])
        let admin = try users.add("admin", groups: ["sudo"])

        let cases: [(String, String)] = [
            (admin, "administrator"), (otherGuardian, "guardian"), ("root", "root"),
            (users.prefix + "nobody", "there is no user"),
        ]
        for (user, reason) in cases {
            let result = try screenward(as: guardian, ["child", "add", user])
            XCTAssertNotEqual(result.status, 0, "\(user) must not be made a managed user")
            XCTAssertTrue(result.error.contains(reason), "\(user): \(result.error)")
        }
        let listed = try screenward(as: guardian, ["child", "list", "--json"])
        XCTAssertEqual(listed.status, 0, listed.error)
        XCTAssertFalse(listed.output.contains(users.prefix), listed.output)
    }

    func testAChildCanNeitherReadNorChangeTheDaemonsState() throws {
        let child = try users.add("kid")
        XCTAssertEqual(try screenward(as: "root", ["child", "add", child]).status, 0)

        let attributes = try FileManager.default.attributesOfItem(atPath: state.path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o700)
        XCTAssertEqual((attributes[.ownerAccountID] as? NSNumber)?.intValue, 0)
        let socketMode = try FileManager.default.attributesOfItem(atPath: socket)[.posixPermissions] as? NSNumber
        XCTAssertEqual(socketMode?.intValue, 0o666, "every user reaches the socket; requests are authorized by peer")

        let database = state.appendingPathComponent("daemon.sqlite").path
        for attempt in [
            ["ls", state.path], ["cat", database], ["rm", "-f", database], ["chmod", "777", state.path],
            ["rm", "-rf", state.path],
        ] {
            let result = try users.run(as: child, attempt)
            XCTAssertNotEqual(result.status, 0, "\(attempt.joined(separator: " ")) must fail for the child")
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: database))
        let listed = try screenward(as: "root", ["child", "list", "--json"])
        XCTAssertTrue(listed.output.contains("\"\(child)\""), listed.output)
    }

    /// What the daemon answers reaches a guardian and a child in their own language: its
    /// refusals and outcomes come as phrases the command line translates (here into the
    /// pseudo-locale, where each translated text is bracketed).
    func testTheDaemonsAnswersAreInTheCallersLanguage() throws {
        let guardian = try users.add("guard", groups: [fixture.guardianGroup])
        let child = try users.add("kid")
        let other = try users.add("other")
        let admin = try users.add("admin", groups: ["sudo"])
        let pseudo = try PseudoLocale.environment()
        let attempts: [(user: String, arguments: [String], succeeds: Bool)] = [
            (guardian, ["child", "add", child], true),
            (guardian, ["child", "add", admin], false),
            (guardian, ["child", "add", users.prefix + "nobody"], false),
            (guardian, ["child", "list"], true),
            (guardian, ["child", "lock", child], true),
            (guardian, ["limit", "add", "Games", "--user", child, "--app", "nosuch.desktop", "--daily", "1h"], false),
            (guardian, ["status", "--user", child], true),
            (guardian, ["request", "list"], true),
            (guardian, ["request", "approve", "\(child)/7"], false),
            (child, ["child", "remove", child], false),
            (child, ["request", "list"], true),
            (other, ["child", "list"], false),
            (other, ["status", "--user", child], false),
            (guardian, ["child", "remove", child], true),
            (guardian, ["child", "remove", child], false),
            // What was recorded meanwhile, for the guardians: the refusals, the lock, the changes.
            (guardian, ["child", "events", child], true),
        ]
        // Besides the users and groups, the commands a refusal names (`child remove kid`).
        let names = Set([
            guardian, child, other, admin, users.prefix + "nobody", fixture.guardianGroup, "sudo", "nosuch.desktop",
            "child remove", "child list",
        ])
        var seen = 0
        for (user, arguments, succeeds) in attempts {
            let run = try fixture.screenward(as: user, arguments, environment: pseudo)
            XCTAssertEqual(run.status == 0, succeeds, "\(user): \(arguments): \(run.output) \(run.error)")
            for line in (run.output + "\n" + run.error).split(separator: "\n") {
                // An event's kind is the record's own word, for scripts (`refused`), not a text.
                let withoutKind =
                    arguments.starts(with: ["child", "events"])
                    ? String(line).replacingOccurrences(
                        of: #"^(\S+)  [a-z-]+ +"#, with: "$1 ", options: .regularExpression)
                    : String(line)
                // ISO-8601 times and paths are values.
                let text = withoutKind.replacingOccurrences(
                    of: #"\d{4}-\d{2}-\d{2}T[0-9:.]+([+-]\d{2}:\d{2}|Z)"#, with: " ", options: .regularExpression
                ).replacingOccurrences(of: #"/[^\s)⟦⟧]+"#, with: " ", options: .regularExpression)
                seen += 1
                XCTAssertEqual(
                    PseudoLocale.untranslated(in: text, data: names), "",
                    "\(user): screenward \(arguments.joined(separator: " ")): \(line)")
            }
        }
        XCTAssertGreaterThan(seen, 12)
    }
}
