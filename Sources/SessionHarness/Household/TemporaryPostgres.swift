import Foundation
import Glibc

/// A real PostgreSQL server from Debian's packages for one test or benchmark: a cluster made
/// with initdb in a folder of its own, run by pg_ctl as a system user made for it (the
/// server refuses root), its socket in that folder, listening on `addresses` at a free port.
/// Local logins are by peer authentication (its owner's alone), TCP logins by password
/// (SCRAM), as on a Debian server set up for a household.
public final class TemporaryPostgres {
    public let owner: String
    public let folder: URL
    public let port: Int
    public var socketDirectory: String { folder.path }
    /// The server's data folder (its settings, and the certificate `household create` makes).
    public var data: URL { folder.appendingPathComponent("data") }
    private let binaries: URL
    private let users: LocalUsers

    /// Why the server cannot run here (not root, PostgreSQL missing), or nil when it can.
    public static func missingRequirement() -> String? {
        guard geteuid() == 0 else { return "running PostgreSQL as a user of its own needs root" }
        guard binaryFolder() != nil else { return "PostgreSQL is missing (apt-get install postgresql)" }
        return nil
    }

    /// The newest installed server's programs (`/usr/lib/postgresql/15/bin`).
    static func binaryFolder() -> URL? {
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        return versions.compactMap { Int($0) }.sorted().reversed().map {
            root.appendingPathComponent("\($0)/bin")
        }.first { FileManager.default.isExecutableFile(atPath: $0.appendingPathComponent("pg_ctl").path) }
    }

    /// Makes the cluster and starts it.
    public init(users: LocalUsers, addresses: [String] = ["127.0.0.1"]) throws {
        guard let binaries = Self.binaryFolder() else {
            throw HarnessError.failed("PostgreSQL is missing (apt-get install postgresql)")
        }
        self.binaries = binaries
        self.users = users
        owner = try users.add("pg")
        folder = URL(fileURLWithPath: "/tmp/screenward-pg-\(UUID().uuidString)")
        users.note("folder \(folder.path)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try LocalUsers.capture("/bin/chown", [owner, folder.path])
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
        port = Int.random(in: 20_000...45_000)
        let made = try users.run(
            as: owner,
            [
                binaries.appendingPathComponent("initdb").path, "-D", data.path, "-U", owner, "--auth-local=peer",
                "--auth-host=scram-sha-256", "--no-sync", "-E", "UTF8", "--locale=C",
            ])
        guard made.status == 0 else { throw HarnessError.failed("initdb failed: \(made.error)") }
        let settings = """
            listen_addresses = '\(addresses.joined(separator: ","))'
            port = \(port)
            unix_socket_directories = '\(folder.path)'
            fsync = on
            log_min_messages = warning

            """
        try append(settings, to: data.appendingPathComponent("postgresql.conf"))
        // Logins by password from this computer only (initdb's); `household create` lets the
        // household's computers in from the network, over TLS.
        try start()
    }

    deinit { stop(mode: "immediate") }

    /// The server's main process (the postmaster), run in the foreground as its owner.
    private var server: ChildProcess?

    /// Starts the server and waits until it takes logins.
    public func start() throws {
        // setpriv execs the server itself (no process in between), so signals reach it.
        let server = try ChildProcess(
            URL(fileURLWithPath: "/usr/bin/setpriv"),
            [
                "--reuid", owner, "--regid", owner, "--init-groups", "--",
                binaries.appendingPathComponent("postgres").path, "-D", data.path,
            ])
        self.server = server
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if !server.isRunning {
                throw HarnessError.failed("the PostgreSQL server did not start: \(server.standardError)")
            }
            if (try? psql("SELECT 1")) == "1" { return }
            usleep(100_000)
        }
        throw HarnessError.timedOut("the PostgreSQL server taking logins: \(server.standardError)")
    }

    /// Stops the server: `fast` ends its sessions and shuts down cleanly, `immediate` stops as
    /// a crash would (recovery at the next start).
    public func stop(mode: String = "fast") {
        guard let server, server.isRunning else { return }
        server.signal(mode == "immediate" ? SIGQUIT : SIGINT)
        _ = server.waitForExit(timeout: 30)
        waitForItsProcesses()
    }

    /// Kills the server's main process with SIGKILL, as a power cut would take it, and waits
    /// until its processes are gone.
    public func killHard() {
        guard let server, server.isRunning else { return }
        server.signal(SIGKILL)
        _ = server.waitForExit(timeout: 10)
        waitForItsProcesses()
    }

    /// The server's other processes see the postmaster gone and exit on their own.
    private func waitForItsProcesses() {
        for _ in 0..<200 {
            let left = (try? LocalUsers.capture("/usr/bin/pgrep", ["-u", owner]))?.output ?? ""
            if left.isEmpty { return }
            usleep(50_000)
        }
    }

    public var serverLog: String { server?.standardError ?? "" }

    /// Runs `sql` as the server's owner in `database`, returning what psql printed (unaligned, tuples only).
    public func psql(_ sql: String, database: String = "postgres") throws -> String {
        let result = try users.run(
            as: owner,
            [
                binaries.appendingPathComponent("psql").path, "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h",
                folder.path, "-p", String(port), "-d", database, "-c", sql,
            ])
        guard result.status == 0 else { throw HarnessError.failed("psql: \(result.error)") }
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func append(_ text: String, to file: URL) throws {
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(text.utf8))
    }
}

extension TemporaryPostgres {
    /// The CPU the server's processes have used so far (user and system), in seconds: the
    /// postmaster's and every live backend's (a backend that ended took its count with it).
    public func cpuSeconds() -> Double {
        let pids = ((try? LocalUsers.capture("/usr/bin/pgrep", ["-u", owner]))?.output ?? "")
            .split(separator: "\n").compactMap { Int32($0) }
        return pids.reduce(0) { $0 + ProcessCPU.seconds(of: $1) }
    }
}

/// A process's CPU so far from /proc/PID/stat (user and system time, in clock ticks of 1/100 s).
public enum ProcessCPU {
    public static func seconds(of pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return 0 }
        // After the command's closing parenthesis: state is field 3, utime 14, stime 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / 100
    }

    public static func ofThisProcess() -> Double { seconds(of: getpid()) }
}
