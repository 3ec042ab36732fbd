import Foundation
import PostgresNIO
import ScreenwardCore
import ScreenwardIPC

/// Making, joining and leaving a household, and reading its status (docs/household.md).
/// Each runs off the daemon's loop (it waits on the network) and returns what to keep.
public enum HouseholdSetup {
    /// How long a join code stays good.
    public static let invitationLifetime: TimeInterval = 24 * 3600

    // MARK: Create

    /// Makes the household's database on a PostgreSQL server of this computer, with its
    /// owner role, schema and the computers' group roles; joins this computer to it, and
    /// makes a code for the next one.
    public static func create(
        _ request: HouseholdCreateRequest, computerName: String, madeBy: String, files: HouseholdFiles
    ) async throws -> HouseholdCreated {
        guard try files.membership() == nil else {
            throw HouseholdError(alreadyInOne)
        }
        var owner = HouseholdLogin(
            host: request.localAddress, port: request.port, database: request.database, role: request.database,
            password: randomPassword(), certificate: nil)
        try await ServerOwner.bootstrap(owner: owner, request: request)
        let serverChanges = try await ServerOwner.prepareNetwork(request: request)
        // The server is this computer's own: its certificate is the one to pin.
        owner.certificate = try await certificate(of: owner)
        try files.save(owner: owner)
        try await HouseholdDatabase.with(owner) { connection in
            do {
                try await migrate(connection)
            } catch {
                throw HouseholdError(
                    Phrase(
                        "could not make the household's tables: {error}", context: "household",
                        ["error": HouseholdDatabase.spoken(error)]))
            }
            try await connection.query(
                PostgresQuery(
                    unsafeSQL: """
                        GRANT CONNECT ON DATABASE \(quoted(request.database)) \
                        TO screenward_computers, screenward_invitations
                        """),
                logger: HouseholdDatabase.logger)
        }
        let first = try await invite(as: owner, madeBy: madeBy)
        let membership = try await join(
            host: request.localAddress, port: request.port, database: request.database, code: first.code,
            computerName: computerName, files: files)
        let next = try await invite(as: membership.login, madeBy: madeBy)
        return HouseholdCreated(
            status: try await status(of: membership), invitation: next, serverChanges: serverChanges.map(\.description),
            serverChangePhrases: serverChanges,
            certificate: owner.certificate?.description ?? "")
    }

    /// The certificate of the server `login` reaches, which this computer set up itself. Right
    /// after TLS was turned on, the server may still be reading its settings: asked again for
    /// a few seconds.
    private static func certificate(of login: HouseholdLogin) async throws -> CertificateFingerprint {
        var attempts = 0
        while true {
            do {
                let (connection, certificate) = try await HouseholdDatabase.connect(login, accepting: { _ in true })
                try? await connection.close()
                return certificate
            } catch {
                attempts += 1
                guard attempts < 20 else { throw error }
                try await Task.sleep(for: .milliseconds(250))
            }
        }
    }

    /// Applies the migrations a newer Screenward brought, as the database's owner.
    public static func upgrade(_ owner: HouseholdLogin) async throws {
        try await HouseholdDatabase.with(owner) { connection in
            do {
                try await migrate(connection)
            } catch {
                throw HouseholdError(
                    Phrase(
                        "could not update the household's tables: {error}", context: "household",
                        ["error": HouseholdDatabase.spoken(error)]))
            }
        }
    }

    /// Applies the schema's migrations not yet applied, each in its own transaction.
    static func migrate(_ connection: PostgresConnection) async throws {
        let logger = HouseholdDatabase.logger
        try await connection.query(
            "CREATE TABLE IF NOT EXISTS schema_migration (name text PRIMARY KEY, applied_at timestamptz NOT NULL)",
            logger: logger)
        var applied: Set<String> = []
        for try await name in try await connection.query("SELECT name FROM schema_migration", logger: logger)
            .decode(String.self)
        {
            applied.insert(name)
        }
        for migration in HouseholdSchema.migrations where !applied.contains(migration.name) {
            try await connection.withTransaction(logger: logger) { connection in
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query(
                    "INSERT INTO schema_migration (name, applied_at) VALUES (\(migration.name), now())",
                    logger: logger)
            }
        }
    }

    // MARK: Codes, joining, leaving

    /// A join code made as `login` (the owner, or a member computer).
    public static func invite(as login: HouseholdLogin, madeBy: String) async throws -> HouseholdInvitation {
        guard let certificate = login.certificate else {
            throw HouseholdError(HouseholdDatabase.joinedBeforeEncryption)
        }
        let code = JoinCode.make(certificate: certificate)
        let lifetime = "\(Int(invitationLifetime)) seconds"
        let expires = try await HouseholdDatabase.with(login) { connection in
            do {
                let rows = try await connection.query(
                    "SELECT make_invitation(\(madeBy), \(code.roleSuffix), \(code.secret), \(lifetime)::interval)",
                    logger: HouseholdDatabase.logger)
                for try await expires in rows.decode(Date.self) { return expires }
                throw HouseholdError(Phrase("the household's database made no join code", context: "household"))
            } catch let error as HouseholdError {
                throw error
            } catch {
                throw HouseholdError(
                    Phrase(
                        "could not make a join code: {error}", context: "household",
                        ["error": HouseholdDatabase.spoken(error)]))
            }
        }
        return HouseholdInvitation(code: code.description, expiresAt: expires, place: login.place)
    }

    /// Joins the household at `host` with a code: the database makes this computer's own
    /// role (its password made here, never shown), and the membership is kept.
    @discardableResult
    public static func join(
        host: String, port: Int, database: String, code text: String, computerName: String, files: HouseholdFiles
    ) async throws -> HouseholdMembership {
        guard try files.membership() == nil else {
            throw HouseholdError(alreadyInOne)
        }
        let code = try JoinCode(parsing: text)
        let invitation = HouseholdLogin(
            host: host, port: port, database: database, role: code.role, password: code.secret, certificate: nil)
        let password = randomPassword()
        let connection: PostgresConnection
        let certificate: CertificateFingerprint
        do {
            (connection, certificate) = try await HouseholdDatabase.connect(invitation, accepting: code.names)
        } catch let error as HouseholdError where error.description.contains("is not the household's") {
            // swift-format-ignore
            throw HouseholdError(Phrase("{error}: the join code names another server. Check the host, and the code (`screenward household invite` there shows a new one)", context: "household", ["error": error.phrase]))
        } catch let error as HouseholdError {
            // Not the household's database, or none at all.
            // swift-format-ignore
            throw HouseholdError(Phrase("{error}. Check the host and port (the computer that holds the household's database)", context: "household", ["error": error.phrase]))
        } catch {
            // A wrong code and a used one look the same to the server (the role cannot log
            // in); so does one that has expired (its role's password has).
            // The connection's own words, as they are (translated when they are a phrase).
            let said: any PhraseFilling
            if let error = error as? any PhrasedError {
                said = error.phrase
            } else {
                said = "\(error)"
            }
            // swift-format-ignore
            throw HouseholdError(Phrase("the household at {place} did not take this join code: it is wrong, was used or has expired ({error}). A guardian makes a new one with `screenward household invite`", context: "household", ["place": invitation.place, "error": said]))
        }
        let role: String
        do {
            let rows = try await connection.query(
                "SELECT join_household(\(computerName), \(password))", logger: HouseholdDatabase.logger)
            var made: String?
            for try await name in rows.decode(String.self) { made = name }
            try? await connection.close()
            guard let made else {
                throw HouseholdError(
                    Phrase("the household's database made no role for this computer", context: "household"))
            }
            role = made
        } catch let error as HouseholdError {
            try? await connection.close()
            throw error
        } catch {
            try? await connection.close()
            throw HouseholdError(
                Phrase(
                    "could not join the household: {error}", context: "household",
                    ["error": HouseholdDatabase.spoken(error)]))
        }
        let membership = HouseholdMembership(
            login: HouseholdLogin(
                host: host, port: port, database: database, role: role, password: password, certificate: certificate),
            computerName: computerName, joinedAt: Date())
        try files.save(membership)
        return membership
    }

    /// Leaves the household: this computer's role can no longer log in, what it recorded
    /// stays (that time was used), and its membership is forgotten here.
    public static func leave(_ membership: HouseholdMembership, files: HouseholdFiles) async throws {
        try await HouseholdDatabase.with(membership.login) { connection in
            do {
                try await connection.query("SELECT leave_household()", logger: HouseholdDatabase.logger)
            } catch {
                throw HouseholdError(
                    Phrase(
                        "could not leave the household: {error}", context: "household",
                        ["error": HouseholdDatabase.spoken(error)]))
            }
        }
        try files.forgetMembership()
    }

    // MARK: Status

    public static func status(of membership: HouseholdMembership) async throws -> HouseholdStatus {
        try await HouseholdDatabase.with(membership.login) { connection in
            let logger = HouseholdDatabase.logger
            var computers: [HouseholdStatus.Computer] = []
            let rows = try await connection.query(
                """
                SELECT role, name, joined_at, last_seen FROM computer WHERE left_at IS NULL ORDER BY joined_at, name
                """, logger: logger)
            for try await (role, name, joinedAt, lastSeen) in rows.decode((String, String, Date, Date?).self) {
                computers.append(
                    HouseholdStatus.Computer(
                        name: name, joinedAt: joinedAt, lastSeen: lastSeen,
                        isThisComputer: role == membership.login.role))
            }
            var children: [String] = []
            for try await name in try await connection.query("SELECT name FROM child ORDER BY name", logger: logger)
                .decode(String.self)
            {
                children.append(name)
            }
            var now = Date()
            for try await time in try await connection.query("SELECT now()", logger: logger).decode(Date.self) {
                now = time
            }
            return HouseholdStatus(
                place: membership.login.place, computerName: membership.computerName, computers: computers,
                children: children, databaseTime: now)
        }
    }

    // MARK: Private

    /// Why a computer already in a household cannot make or join another.
    // swift-format-ignore
    static let alreadyInOne = Phrase("this computer is already in a household: `screenward household leave` first", context: "household")

    /// 32 characters of the join codes' alphabet: 160 bits.
    static func randomPassword() -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<32).map { _ in JoinCode.alphabet[Int(generator.next(upperBound: UInt32(32)))] })
    }

    static func quoted(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
