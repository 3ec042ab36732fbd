import Foundation
import GRDB
@_spi(Screenward) import ManagedSettings
import UsageLedger

/// What kind of item a token names.
public enum TokenKind: String, Sendable, Codable, CaseIterable {
    case application, category, webDomain
}

/// An app's authorization (schema: migration v3).
public struct ClientGrant: Sendable, Hashable {
    public var client: String
    public var member: String
    /// Random per grant: the client's tokens derive from it, so a new grant voids old tokens.
    public var grantKey: String
    public var grantedAt: Date
}

/// A token handed to a client, and what it stands for.
public struct IssuedToken: Sendable, Hashable {
    public var kind: TokenKind
    public var token: String
    public var deviceToken: String
    /// What it names: an application id (`firefox.desktop`), a category id (`Game`), a domain.
    public var label: String
}

/// The state owner's transactions on authorizations, tokens, stores and the outbox.
extension Ledger {
    // MARK: Authorization

    public func grant(for client: String) throws -> ClientGrant? {
        try database.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM clientAuthorization WHERE client = ?", arguments: [client]).map {
                ClientGrant(
                    client: $0["client"], member: $0["member"], grantKey: $0["grantKey"],
                    grantedAt: Date(timeIntervalSince1970: $0["grantedAt"]))
            }
        }
    }

    /// The clients authorised as `member`, oldest grant first.
    /// Every app authorised, oldest first.
    public func grants() throws -> [ClientGrant] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM clientAuthorization ORDER BY grantedAt, client").map {
                ClientGrant(
                    client: $0["client"], member: $0["member"], grantKey: $0["grantKey"],
                    grantedAt: Date(timeIntervalSince1970: $0["grantedAt"]))
            }
        }
    }

    public func clients(withMember member: String) throws -> [String] {
        try database.read { db in
            try String.fetchAll(
                db, sql: "SELECT client FROM clientAuthorization WHERE member = ? ORDER BY grantedAt",
                arguments: [member])
        }
    }

    /// Authorizes `client`, keeping an existing grant (and so its tokens) as it is.
    public func authorize(client: String, member: String, grantKey: String, at now: Date) throws -> ClientGrant {
        try database.write { db in
            try db.execute(
                sql:
                    """
                    INSERT OR IGNORE INTO clientAuthorization (client, member, grantKey, grantedAt) \
                    VALUES (?, ?, ?, ?)
                    """,
                arguments: [client, member, grantKey, now.timeIntervalSince1970])
        }
        guard let grant = try grant(for: client) else {
            throw LedgerError.unreadable(path: "clientAuthorization", reason: "grant vanished")
        }
        return grant
    }

    /// Removes the grant with everything that hangs on it: tokens, stores, undelivered callbacks.
    public func revokeAuthorization(client: String) throws {
        try database.write { db in
            try db.execute(sql: "DELETE FROM monitorOutbox WHERE client = ?", arguments: [client])
            try db.execute(sql: "DELETE FROM clientAuthorization WHERE client = ?", arguments: [client])
        }
    }

    // MARK: Tokens

    public func recordIssuedTokens(_ tokens: [IssuedToken], client: String) throws {
        guard !tokens.isEmpty else { return }
        try database.write { db in
            for token in tokens {
                try db.execute(
                    sql:
                        """
                        INSERT OR IGNORE INTO issuedToken (client, kind, token, deviceToken, label) \
                        VALUES (?, ?, ?, ?, ?)
                        """,
                    arguments: [client, token.kind.rawValue, token.token, token.deviceToken, token.label])
            }
        }
    }

    /// The issued tokens of `client` among `tokens`, by token.
    public func issuedTokens(client: String, kind: TokenKind, _ tokens: some Collection<String>) throws -> [String:
        IssuedToken]
    {
        guard !tokens.isEmpty else { return [:] }
        return try database.read { db in
            var found: [String: IssuedToken] = [:]
            for token in tokens {
                if let row = try Row.fetchOne(
                    db, sql: "SELECT deviceToken, label FROM issuedToken WHERE client = ? AND kind = ? AND token = ?",
                    arguments: [client, kind.rawValue, token])
                {
                    found[token] = IssuedToken(
                        kind: kind, token: token, deviceToken: row["deviceToken"], label: row["label"])
                }
            }
            return found
        }
    }

    /// What device-wide tokens name, from any client's issued tokens.
    public func labels(kind: TokenKind) throws -> [String: String] {
        try database.read { db in
            var labels: [String: String] = [:]
            for row in try Row.fetchAll(
                db, sql: "SELECT DISTINCT deviceToken, label FROM issuedToken WHERE kind = ?",
                arguments: [kind.rawValue])
            {
                labels[row["deviceToken"]] = row["label"]
            }
            return labels
        }
    }

    // MARK: Stores

    package func storeContents(client: String, name: String) throws -> StoreContents? {
        try database.read { db in
            try String.fetchOne(
                db, sql: "SELECT contents FROM managedStore WHERE client = ? AND name = ?", arguments: [client, name])
        }.map { try JSONDecoder().decode(StoreContents.self, from: Data($0.utf8)) }
    }

    public func storeNames(client: String) throws -> [String] {
        try database.read { db in
            try String.fetchAll(
                db, sql: "SELECT name FROM managedStore WHERE client = ? ORDER BY name", arguments: [client])
        }
    }

    /// Saves a store; an empty one is removed (it no longer counts against the 50).
    @_spi(Screenward) public func saveStore(client: String, name: String, contents: StoreContents, at now: Date) throws
    {
        let json = String(decoding: try JSONEncoder().encode(contents), as: UTF8.self)
        try database.write { db in
            if contents.isEmpty {
                try db.execute(
                    sql: "DELETE FROM managedStore WHERE client = ? AND name = ?", arguments: [client, name])
            } else {
                try db.execute(
                    sql: "INSERT OR REPLACE INTO managedStore (client, name, contents, updatedAt) VALUES (?, ?, ?, ?)",
                    arguments: [client, name, json, now.timeIntervalSince1970])
            }
        }
    }

    /// Every store of every client, with device-wide tokens. A store that cannot be
    /// read is reported and left out, never fatal.
    public func allStores(problems: inout [String]) throws -> [StoreSettings] {
        let rows = try database.read { db in
            try Row.fetchAll(db, sql: "SELECT client, name, contents FROM managedStore ORDER BY client, name")
        }
        return rows.compactMap { row in
            let (client, name, contents): (String, String, String) = (row["client"], row["name"], row["contents"])
            do {
                let decoded = try JSONDecoder().decode(StoreContents.self, from: Data(contents.utf8))
                return StoreSettings(
                    owner: client, name: name, shield: decoded.shield, application: decoded.application,
                    webContent: decoded.webContent)
            } catch {
                problems.append("the settings store \(client)/\(name) cannot be read (\(error)); it is ignored")
                return nil
            }
        }
    }

    // MARK: Monitor outbox

    /// Queues a callback for `client`'s monitor; returns its sequence number.
    public func appendToOutbox(client: String, at now: Date, message: (Int64) throws -> Data) throws -> Int64 {
        try database.write { db in try Self.appendToOutbox(db, client: client, at: now, message: message) }
    }

    /// The same, inside a transaction the caller holds.
    package static func appendToOutbox(
        _ db: Database, client: String, at now: Date, message: (Int64) throws -> Data
    ) throws -> Int64 {
        try db.cachedStatement(sql: "INSERT INTO monitorOutbox (client, message, createdAt) VALUES (?, '', ?)").execute(
            arguments: [client, now.timeIntervalSince1970])
        let sequence = db.lastInsertedRowID
        try db.cachedStatement(sql: "UPDATE monitorOutbox SET message = ? WHERE sequence = ?").execute(arguments: [
            String(decoding: try message(sequence), as: UTF8.self), sequence,
        ])
        return sequence
    }

    public func outbox(client: String) throws -> [(sequence: Int64, message: Data)] {
        try database.read { db in
            try Row.fetchAll(
                db, sql: "SELECT sequence, message FROM monitorOutbox WHERE client = ? ORDER BY sequence",
                arguments: [client]
            )
            .map { (sequence: $0["sequence"], message: Data(($0["message"] as String).utf8)) }
        }
    }

    public func acknowledge(client: String, sequences: [Int64]) throws {
        try database.write { db in
            for sequence in sequences {
                try db.execute(
                    sql: "DELETE FROM monitorOutbox WHERE client = ? AND sequence = ?", arguments: [client, sequence])
            }
        }
    }
}
