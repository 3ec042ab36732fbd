import Foundation
import ScreenwardCore
import ScreenwardIPC

/// The first step of making a household, taken as the system user that owns the PostgreSQL
/// server (Debian's `postgres`), which logs in over the server's socket by peer
/// authentication: the household's owner role and its database. Done with `psql` (in
/// postgresql-client, beside the server), so that no password of the server's is asked for.
enum ServerOwner {
    static func bootstrap(owner: HouseholdLogin, request: HouseholdCreateRequest) async throws {
        guard request.database.range(of: "^[a-z_][a-z0-9_]{0,40}$", options: .regularExpression) != nil else {
            throw HouseholdError(
                Phrase(
                    "a household's database is named with lower-case letters, digits and _ (not {name})",
                    context: "household", ["name": request.database]))
        }
        let psql = try psqlPath()
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
                // swift-format-ignore
                throw HouseholdError(Phrase("the PostgreSQL server on port {port} already has a household's database or role ({database}): {error}", context: "household", ["port": String(request.port), "database": database, "error": said]))
            }
            let values: [String: any PhraseFilling] = [
                "owner": request.serverOwner, "socket": request.socketDirectory, "port": String(request.port),
                "error": said, "status": String(result.status),
            ]
            // swift-format-ignore
            throw HouseholdError(
                said.isEmpty
                    ? Phrase("could not make the household's database as {owner} on the server at {socket}, port {port}: psql exited with status {status}", context: "household", values)
                    : Phrase("could not make the household's database as {owner} on the server at {socket}, port {port}: {error}", context: "household", values))
        }
    }

    // MARK: The server, for the other computers

    /// Sets the server up for the household's other computers, as its owner, and says what it
    /// changed: TLS (with the certificate the server has, else one made for it: Debian's
    /// cluster has its own), logins to the household's database from any address by password
    /// over TLS only, and listening on every address (which takes a restart). Run again, it
    /// changes nothing more.
    static func prepareNetwork(request: HouseholdCreateRequest) async throws -> [Phrase] {
        var changes: [Phrase] = []
        let settings = try await self.settings(request)
        func setting(_ name: String) throws -> String {
            guard let value = settings[name] else {
                throw HouseholdError(
                    Phrase("the server did not say its {setting}", context: "household", ["setting": name]))
            }
            return value
        }
        if try setting("ssl") != "on" {
            let folder = try setting("data_directory")
            let certificate = "\(folder)/screenward-household.crt"
            let key = "\(folder)/screenward-household.key"
            try await makeCertificate(certificate: certificate, key: key, as: request.serverOwner)
            try await query(
                """
                ALTER SYSTEM SET ssl_cert_file = '\(certificate)';
                ALTER SYSTEM SET ssl_key_file = '\(key)';
                ALTER SYSTEM SET ssl = on;
                """, request)
            changes.append(
                Phrase(
                    "TLS is on, with a certificate made for the household ({certificate}, good for 10 years)",
                    context: "household", ["certificate": certificate]))
        }
        let hbaFile = try setting("hba_file")
        let marker = "# screenward household: \(request.database)"
        let hba = (try? String(contentsOfFile: hbaFile, encoding: .utf8)) ?? ""
        if !hba.split(separator: "\n").contains(where: { $0 == marker }) {
            let lines = """

                \(marker)
                # (added by `screenward household create`): its computers, from any address, by password, over TLS only.
                hostssl \(request.database) +screenward_computers,+screenward_invitations all scram-sha-256

                """
            guard let handle = FileHandle(forWritingAtPath: hbaFile) else {
                throw HouseholdError(
                    Phrase(
                        "cannot write {file}, where the server says who may log in from where", context: "household",
                        ["file": hbaFile]))
            }
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(lines.utf8))
            try handle.close()
            // swift-format-ignore
            changes.append(Phrase("the household's computers may log in to {database} from any address over TLS ({file})", context: "household", ["database": request.database, "file": hbaFile]))
        }
        try await query("SELECT pg_reload_conf();", request)
        let listening = try setting("listen_addresses")
        if !listening.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }).contains("*") {
            try await query("ALTER SYSTEM SET listen_addresses = '*';", request)
            // swift-format-ignore
            changes.append(Phrase("PostgreSQL listens on {addresses} until it is restarted, then on every address, so that the other computers reach it: systemctl restart postgresql", context: "household", ["addresses": listening]))
        }
        return changes
    }

    /// A self-signed certificate and its key for the server, made as its owner (the server
    /// reads its key only when no one else may).
    private static func makeCertificate(certificate: String, key: String, as owner: String) async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") else {
            throw HouseholdError(
                Phrase(
                    "openssl is missing: it makes the household's server a certificate (apt-get install openssl)",
                    context: "household"))
        }
        let made = try await run(
            [
                "/usr/sbin/runuser", "-u", owner, "--", "/usr/bin/openssl", "req", "-x509", "-newkey", "ec",
                "-pkeyopt", "ec_paramgen_curve:prime256v1", "-sha256", "-nodes", "-days", "3650", "-subj",
                "/CN=screenward household", "-keyout", key, "-out", certificate,
            ], input: "")
        guard made.status == 0 else {
            throw HouseholdError(
                Phrase("could not make the server a certificate: {error}", context: "household", ["error": made.error]))
        }
        _ = try await run(["/usr/sbin/runuser", "-u", owner, "--", "/bin/chmod", "600", key], input: "")
    }

    /// The server's settings the household needs, by name.
    private static func settings(_ request: HouseholdCreateRequest) async throws -> [String: String] {
        let output = try await query(
            """
            SELECT name || '=' || setting FROM pg_settings
            WHERE name IN ('ssl', 'data_directory', 'hba_file', 'listen_addresses');
            """, request)
        var settings: [String: String] = [:]
        for line in output.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { settings[parts[0]] = parts[1] }
        }
        return settings
    }

    /// Runs `sql` as the server's owner; what it printed (unaligned, tuples only).
    @discardableResult
    private static func query(_ sql: String, _ request: HouseholdCreateRequest) async throws -> String {
        let arguments = [
            try psqlPath(), "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-h", request.socketDirectory, "-p",
            String(request.port), "-d", "postgres", "-f", "-",
        ]
        let result = try await run(["/usr/sbin/runuser", "-u", request.serverOwner, "--"] + arguments, input: sql)
        guard result.status == 0 else {
            let said = result.error.trimmingCharacters(in: .whitespacesAndNewlines)
            throw HouseholdError(
                Phrase(
                    "the server refused {statement}: {error}", context: "household",
                    ["statement": String(sql.split(separator: "\n").first ?? ""), "error": said]))
        }
        return result.output
    }

    private static func psqlPath() throws -> String {
        guard
            let psql = ["/usr/bin/psql", "/usr/lib/postgresql/15/bin/psql"].first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else {
            // swift-format-ignore
            throw HouseholdError(Phrase("psql is missing: the computer that holds the household's database needs PostgreSQL (apt-get install postgresql)", context: "household"))
        }
        return psql
    }

    /// Runs `command`, `input` on its standard input; what it printed, and on its error.
    private static func run(_ command: [String], input: String) async throws -> (
        status: Int32, output: String, error: String
    ) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.environment = ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL": "C"]
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        // Read both at once: a full pipe would hold the other up.
        let error = Task.detached { stderr.fileHandleForReading.readDataToEndOfFile() }
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let errorData = await error.value
        process.waitUntilExit()
        return (
            process.terminationStatus, String(decoding: output, as: UTF8.self),
            String(decoding: errorData, as: UTF8.self)
        )
    }
}
