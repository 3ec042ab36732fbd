import Foundation
import ScreenwardCore

/// The first step of making a household, taken as the system user that owns the PostgreSQL
/// server (Debian's `postgres`), which logs in over the server's socket by peer
/// authentication: the household's owner role and its database. Done with `psql` (in
/// postgresql-client, beside the server), so that no password of the server's is asked for.
enum ServerOwner {
    static func bootstrap(owner: HouseholdLogin, request: HouseholdCreateRequest) async throws {
        guard request.database.range(of: "^[a-z_][a-z0-9_]{0,40}$", options: .regularExpression) != nil else {
            throw HouseholdError(
                "a household's database is named with lower-case letters, digits and _ (not \(request.database))")
        }
        guard
            let psql = ["/usr/bin/psql", "/usr/lib/postgresql/15/bin/psql"].first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else {
            throw HouseholdError(
                "psql is missing: the computer that holds the household's database needs PostgreSQL "
                    + "(apt-get install postgresql)")
        }
        let database = request.database
        // The password goes on standard input, never in the arguments (`ps` shows those).
        let sql = """
            \\set ON_ERROR_STOP on
            CREATE ROLE \(database) LOGIN CREATEROLE PASSWORD '\(owner.password)';
            CREATE DATABASE \(database) OWNER \(database);
            REVOKE ALL ON DATABASE \(database) FROM PUBLIC;

            """
        let arguments = [
            psql, "-X", "-q", "-h", request.socketDirectory, "-p", String(request.port), "-d", "postgres", "-f", "-",
        ]
        let result = try await run(["/usr/sbin/runuser", "-u", request.serverOwner, "--"] + arguments, input: sql)
        guard result.status == 0 else {
            let said = result.error.trimmingCharacters(in: .whitespacesAndNewlines)
            if said.contains("already exists") {
                throw HouseholdError(
                    """
                    the PostgreSQL server on port \(request.port) already has a household's database or role \
                    (\(database)): \(said)
                    """
                )
            }
            throw HouseholdError(
                """
                could not make the household's database as \(request.serverOwner) \
                on the server at \(request.socketDirectory), port \(request.port): \
                \(said.isEmpty ? "psql exited with status \(result.status)" : said)
                """
            )
        }
    }

    /// Runs `command`, `input` on its standard input; what it printed on its error.
    private static func run(_ command: [String], input: String) async throws -> (status: Int32, error: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.environment = ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL": "C"]
        let stdin = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = FileHandle.nullDevice
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let error = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: error, as: UTF8.self))
    }
}
