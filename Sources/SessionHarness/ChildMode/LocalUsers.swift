import Foundation

/// Real local accounts for tests that check what a user may do: created with
/// useradd/groupadd (root only), removed with everything they own when the test ends.
/// Names start with `swt` and a random part, so parallel runs and leftovers never clash; what
/// a killed run left is removed by the next (`TestLeftovers`).
public final class LocalUsers {
    public let prefix: String
    private var users: [String] = []
    private var groups: [String] = []

    public init() {
        prefix = "swt" + String(UInt32.random(in: 0...0xFFFFF), radix: 36)
        TestLeftovers.sweep()
    }

    /// Notes something else this run made for these users (`file PATH`, `folder PATH`), so
    /// that a later run removes it should this one be killed first.
    public func note(_ line: String) {
        TestLeftovers.note(line, for: prefix)
    }

    deinit { removeAll() }

    /// Creates a login user `<prefix><name>` in `groups` (each created first if missing;
    /// the ones created here are removed after), with `password` if given.
    @discardableResult
    public func add(_ name: String, groups extra: [String] = [], password: String? = nil) throws -> String {
        let user = prefix + name
        for group in extra where !Self.groupExists(group) {
            try Self.run("/usr/sbin/groupadd", [group])
            groups.append(group)
            note("group \(group)")
        }
        var arguments = ["--create-home", "--shell", "/bin/bash", "--user-group", "--uid", String(Self.unusedUID())]
        if !extra.isEmpty { arguments += ["--groups", extra.joined(separator: ",")] }
        note("user \(user)")
        try Self.run("/usr/sbin/useradd", arguments + [user])
        users.append(user)
        if let password { try Self.run("/usr/sbin/chpasswd", [], input: "\(user):\(password)\n") }
        return user
    }

    /// Runs `arguments` as `user` (runuser, no login shell), returning its exit status and output.
    public func run(as user: String, _ arguments: [String], environment: [String: String] = [:]) throws -> (
        status: Int32, output: String, error: String
    ) {
        let assignments = environment.map { "\($0.key)=\($0.value)" }
        return try Self.capture("/usr/sbin/runuser", ["-u", user, "--", "/usr/bin/env"] + assignments + arguments)
    }

    /// Whether `arguments` as `user` succeed (their output is dropped).
    public func runQuietly(as user: String, _ arguments: [String], environment: [String: String] = [:]) -> Bool {
        (try? run(as: user, arguments, environment: environment))?.status == 0
    }

    public func removeAll() {
        for user in users.reversed() { _ = try? Self.capture("/usr/sbin/userdel", ["--remove", user]) }
        for group in groups.reversed() { _ = try? Self.capture("/usr/sbin/groupdel", [group]) }
        users = []
        groups = []
        TestLeftovers.forget(prefix)
    }

    /// A uid no account has and no process runs as, at random. useradd would hand out the
    /// uid a test's user just freed, and what ran as it and is reaped late still counts
    /// toward the new user's process limit (a fork bomb's zombies fail the next test's
    /// first launch).
    static func unusedUID() -> Int {
        var taken = Set<Int>()
        let passwd = (try? String(contentsOfFile: "/etc/passwd", encoding: .utf8)) ?? ""
        for line in passwd.split(separator: "\n") {
            let fields = line.split(separator: ":", omittingEmptySubsequences: false)
            if fields.count > 2, let uid = Int(fields[2]) { taken.insert(uid) }
        }
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        where entry.first?.isNumber == true {
            let status = (try? String(contentsOfFile: "/proc/\(entry)/status", encoding: .utf8)) ?? ""
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Uid:") }) else { continue }
            for field in line.split(whereSeparator: \.isWhitespace).dropFirst() {
                if let uid = Int(field) { taken.insert(uid) }
            }
        }
        while true {
            let uid = Int.random(in: 20_000...59_999)
            if !taken.contains(uid) { return uid }
        }
    }

    public static func groupExists(_ name: String) -> Bool {
        ((try? String(contentsOfFile: "/etc/group", encoding: .utf8)) ?? "").split(separator: "\n").contains {
            $0.hasPrefix(name + ":")
        }
    }

    private static func run(_ program: String, _ arguments: [String], input: String? = nil) throws {
        let result = try capture(program, arguments, input: input)
        guard result.status == 0 else {
            throw LocalUsersError(
                description: "\(program) \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.error)"
            )
        }
    }

    @discardableResult
    public static func capture(_ program: String, _ arguments: [String], input: String? = nil) throws -> (
        status: Int32, output: String, error: String
    ) {
        HarnessStreams.check(beforeStarting: program)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        let output = Pipe()
        let error = Pipe()
        let stdin = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try stdin.fileHandleForWriting.close()
        // Both pipes at once: a program that fills one while the other is read would
        // otherwise block forever (gdb writes much to standard error).
        let errorReader = ErrorReader(error.fileHandleForReading)
        let outData = output.fileHandleForReading.readDataToEndOfFile()
        let errData = errorReader.finish()
        process.waitUntilExit()
        return (
            process.terminationStatus, String(decoding: outData, as: UTF8.self),
            String(decoding: errData, as: UTF8.self)
        )
    }
}

public struct LocalUsersError: Error, CustomStringConvertible {
    public let description: String
    public init(description: String) { self.description = description }
}

/// Reads a pipe to its end on a thread of its own.
private final class ErrorReader: @unchecked Sendable {
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
    }

    func finish() -> Data {
        done.wait()
        return data
    }
}
