import Foundation
import ScreenwardIPC

/// Where a household's database is, and a role to log in to it as: a computer's own
/// (`member.json`), or on the computer that holds the database, its owner's (`owner.json`).
/// Both files are root's alone (mode 0600, in the daemon's 0700 state folder): nothing a
/// child runs can read them.
public struct HouseholdLogin: Codable, Sendable, Equatable {
    public var host: String
    public var port: Int
    public var database: String
    public var role: String
    public var password: String
    /// The server's certificate, as this computer first met it (with a join code that named
    /// it, or when it made the household): every connection checks it. Absent in what a
    /// computer kept before the household's connections were encrypted.
    public var certificate: CertificateFingerprint?

    public init(
        host: String, port: Int, database: String, role: String, password: String, certificate: CertificateFingerprint?
    ) {
        self.host = host
        self.port = port
        self.database = database
        self.role = role
        self.password = password
        self.certificate = certificate
    }

    /// `host:port/database`, as people are told where the household is.
    public var place: String { "\(host):\(port)/\(database)" }
}

/// This computer's membership of a household.
public struct HouseholdMembership: Codable, Sendable, Equatable {
    public var login: HouseholdLogin
    /// The name the household knows this computer by.
    public var computerName: String
    public var joinedAt: Date

    public init(login: HouseholdLogin, computerName: String, joinedAt: Date) {
        self.login = login
        self.computerName = computerName
        self.joinedAt = joinedAt
    }
}

/// The daemon's household folder: `<state>/household/`, root's, mode 0700.
public struct HouseholdFiles: Sendable {
    public let folder: URL

    public init(stateDirectory: URL) {
        folder = stateDirectory.appendingPathComponent("household", isDirectory: true)
    }

    public var memberFile: URL { folder.appendingPathComponent("member.json") }
    public var ownerFile: URL { folder.appendingPathComponent("owner.json") }

    /// This computer's membership, or nil when it is in no household.
    public func membership() throws -> HouseholdMembership? {
        try read(HouseholdMembership.self, from: memberFile)
    }

    /// The database owner's login, kept on the computer that made the household.
    public func ownerLogin() throws -> HouseholdLogin? {
        try read(HouseholdLogin.self, from: ownerFile)
    }

    public func save(_ membership: HouseholdMembership) throws {
        try write(membership, to: memberFile)
    }

    public func save(owner: HouseholdLogin) throws {
        try write(owner, to: ownerFile)
    }

    public func forgetMembership() throws {
        if FileManager.default.fileExists(atPath: memberFile.path) {
            try FileManager.default.removeItem(at: memberFile)
        }
    }

    private func read<Value: Decodable>(_ type: Value.Type, from file: URL) throws -> Value? {
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            return try decoder.decode(type, from: Data(contentsOf: file))
        } catch {
            throw HouseholdError(
                Phrase(
                    "{file} cannot be read ({error}): move it aside and join again", context: "household",
                    ["file": file.path, "error": "\(error)"]))
        }
    }

    /// Written to a new file, mode 0600, then moved into place: never half a file, never
    /// readable by anyone but root.
    private func write<Value: Encodable>(_ value: Value, to file: URL) throws {
        try FileManager.default.createDirectory(
            at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: folder.path)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        let temporary = folder.appendingPathComponent(".\(file.lastPathComponent).\(UUID().uuidString)")
        guard
            FileManager.default.createFile(
                atPath: temporary.path, contents: try encoder.encode(value), attributes: [.posixPermissions: 0o600])
        else { throw HouseholdError(Phrase("cannot write {file}", context: "household", ["file": temporary.path])) }
        if FileManager.default.fileExists(atPath: file.path) {
            _ = try FileManager.default.replaceItemAt(file, withItemAt: temporary)
        } else {
            try FileManager.default.moveItem(at: temporary, to: file)
        }
    }
}

/// What went wrong, said for the person who typed the command: as a phrase, which the
/// command line shows in its reader's language (the daemon does not know it).
public struct HouseholdError: PhrasedError, Sendable {
    public let phrase: Phrase
    public init(_ phrase: Phrase) { self.phrase = phrase }

    /// Any error of the household's, said for people (the database's own words when it spoke).
    public static func describing(_ error: any Error) -> HouseholdError {
        if let error = error as? HouseholdError { return error }
        return HouseholdError(
            Phrase(
                "the household's database: {error}", context: "household",
                ["error": HouseholdDatabase.spoken(error)]))
    }
}
