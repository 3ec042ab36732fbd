import Foundation
import SessionHarness
import TestSupport
import XCTest

/// Real users, groups and PAM service files made for one test and removed in `removeAll`
/// (called from tearDown, so also after a failure). Names carry a random part so parallel
/// runs and leftovers of a killed run never clash.
final class ScratchAccounts {
    let tag = String(UInt32.random(in: 0...0xFF_FFFF), radix: 36)
    private var users: [String] = []
    private var groups: [String] = []
    private var files: [String] = []
    private var memberships: [(user: String, group: String)] = []

    /// Ends the test unless it runs as root (skipped outside CI, failed under CI).
    static func requireRoot(file: StaticString = #filePath, line: UInt = #line) throws {
        if geteuid() != 0 {
            try cannotRun("creating users and checking their passwords needs root", file: file, line: line)
        }
    }

    /// Creates `swtest-<tag><suffix>` with a home and its own group, and sets `password`.
    func addUser(_ suffix: String, password: String) throws -> String {
        let name = "swtest-\(tag)\(suffix)"
        try Self.run("/usr/sbin/useradd", ["--create-home", "--user-group", "--shell", "/bin/sh", name])
        users.append(name)
        try Self.run("/usr/sbin/chpasswd", [], input: "\(name):\(password)\n")
        return name
    }

    func addGroup() throws -> String {
        let name = "swtest-grp-\(tag)"
        try Self.run("/usr/sbin/groupadd", [name])
        groups.append(name)
        return name
    }

    /// Adds `user` to `group`; a group that exists beyond the test (sudo) loses the user
    /// again when the user is deleted, and is created (and removed after) only if missing.
    func add(_ user: String, toGroup group: String) throws {
        if (try? Self.run("/usr/bin/getent", ["group", group])) == nil {
            try Self.run("/usr/sbin/groupadd", [group])
            groups.append(group)
        }
        try Self.run("/usr/sbin/usermod", ["-aG", group, user])
        memberships.append((user, group))
    }

    /// Installs the repository's PAM service file as `/etc/pam.d/screenward-test-<tag>`.
    func installPAMService() throws -> String {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../desktop/pam/screenward")
        let service = "screenward-test-\(tag)"
        let path = "/etc/pam.d/\(service)"
        try FileManager.default.copyItem(atPath: source.standardizedFileURL.path, toPath: path)
        files.append(path)
        return service
    }

    /// Installs a service file of the test's own, for stacks other than Screenward's.
    func installPAMService(named service: String, contents: String) throws {
        let path = "/etc/pam.d/\(service)"
        try contents.write(toFile: path, atomically: true, encoding: .utf8)
        files.append(path)
    }

    func removeAll() {
        for (user, group) in memberships { _ = try? Self.run("/usr/bin/gpasswd", ["-d", user, group]) }
        for user in users.reversed() { _ = try? Self.run("/usr/sbin/userdel", ["--remove", user]) }
        for group in groups.reversed() { _ = try? Self.run("/usr/sbin/groupdel", [group]) }
        for file in files { try? FileManager.default.removeItem(atPath: file) }
        memberships = []
        users = []
        groups = []
        files = []
    }

    /// Runs a system tool; throws with its error output when it fails.
    @discardableResult
    static func run(_ program: String, _ arguments: [String], input: String? = nil) throws -> String {
        let result = try LocalUsers.capture(program, arguments, input: input)
        guard result.status == 0 else {
            throw ScratchAccountsError(
                description:
                    "\(program) \(arguments.joined(separator: " ")) exited with \(result.status): \(result.error)")
        }
        return result.output
    }
}

struct ScratchAccountsError: Error, CustomStringConvertible {
    let description: String
}
